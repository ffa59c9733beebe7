import type { FastifyReply, FastifyRequest } from 'fastify';
import pino from 'pino';
import { type AccessLogEntry, accessLogFormatter } from './access-log.js';
import { endpointOf } from './auth.js';
import { globalPlugin } from './global-plugin.js';

/** Options of the request-log plugin. */
export interface RequestLogPluginOptions {
  /**
   * Where the access-log line goes, in its own format (see `accessLogFormatter`): createServer
   * passes its log destination. Without it the line goes through `request.log.info`, in whatever
   * form the app's logger gives it.
   */
  stream?: { write(line: string): void };
}

/** The request's path: its URL without the query. */
function pathOf(request: FastifyRequest): string {
  const url = request.raw.url ?? '';
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

/** What the access-log line says about the request. */
const entryOf = (request: FastifyRequest, reply: FastifyReply): AccessLogEntry => ({
  requestId: request.id,
  method: request.method,
  path: pathOf(request),
  status: reply.statusCode,
  endpoint: endpointOf(request) ?? null,
  accountId: request.auth?.account.id ?? null,
  ms: Math.round(reply.elapsedTime * 10) / 10,
  extra: request.logFields,
});

/** pino's number for info, which the line's `level` says too. */
const INFO = 30;

/** Whether a logger at `level` writes info lines (a level name pino does not know: no). */
const writesInfo = (level: string) => (pino.levels.values[level] ?? Number.POSITIVE_INFINITY) <= INFO;

/**
 * One access-log line per request, when its response is done: request id (`request_id`),
 * method, path without the query, status, endpoint, account and time taken, then the fields the
 * route added (`request.logFields`). Headers are not logged, so neither keys nor tokens can reach
 * the log this way.
 */
export const requestLogPlugin = globalPlugin(
  'svc-request-log',
  async (app, options: RequestLogPluginOptions) => {
    app.decorateRequest('logFields', undefined);
    const { stream } = options;
    const format = accessLogFormatter();
    app.addHook('onResponse', (request, reply, done) => {
      const entry = entryOf(request, reply);
      if (!stream) {
        // request_id is the child logger's binding.
        const { method, path, status, endpoint, accountId, ms, extra } = entry;
        request.log.info({ method, path, status, endpoint, account_id: accountId, ms, ...extra }, 'request');
      } else if (writesInfo(request.log.level)) {
        stream.write(format(entry));
      }
      done();
    });
  },
);
