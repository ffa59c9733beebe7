import type { FastifyReply, FastifyRequest } from 'fastify';
import pino, { type Logger } from 'pino';
import { endpointOf } from './auth.js';
import { globalPlugin } from './global-plugin.js';

/** Options of the request-log plugin. */
export interface RequestLogPluginOptions {
  /**
   * The stream the server's pino logger writes to. When given, the plugin writes its line there
   * itself, in the form pino gives it (`level` 30, epoch `time`, the logger's bindings, then the
   * request's fields and `msg`): pino's generic formatting (escaping every key and value, looking
   * up serializers per key) was about two thirds of the line's cost, and these fields are ours, so
   * only the path needs escaping. Give it only when the logger is pino with its default level
   * numbers, timestamp and message key writing to this stream, and `request_id` as Fastify's
   * request id label, as `createServer`'s is; without it the line goes through `request.log.info`.
   */
  stream?: { write(line: string): void };
}

/** The request's path: its URL without the query. */
function pathOf(request: FastifyRequest): string {
  const url = request.raw.url ?? '';
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

/** Time to answer, ms, to a tenth. */
const elapsedMs = (reply: FastifyReply) => Math.round(reply.elapsedTime * 10) / 10;

/** The fields of the line after the request id, for the way through `request.log.info`. */
function fields(request: FastifyRequest, reply: FastifyReply) {
  return {
    method: request.method,
    path: pathOf(request),
    status: reply.statusCode,
    endpoint: endpointOf(request) ?? null,
    account_id: request.auth?.account.id ?? null,
    ms: elapsedMs(reply),
    ...request.logFields,
  };
}

/** The route's own fields (`request.logFields`) as JSON members, each after a comma; '' when none. */
function routeFieldsJson(request: FastifyRequest): string {
  const extra = request.logFields;
  if (!extra) return '';
  let out = '';
  for (const [key, value] of Object.entries(extra)) out += `,${JSON.stringify(key)}:${JSON.stringify(value)}`;
  return out;
}

/** A string or null as JSON; `value` must need no escaping (ids and names of ours). */
const plain = (value: string | null) => (value === null ? 'null' : `"${value}"`);

/** Characters a JSON string must escape; a path almost never has one. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what JSON escapes
const NEEDS_ESCAPING = /[\u0000-\u001f"\\]/;

/** The request's path as a JSON string. */
function pathJson(request: FastifyRequest): string {
  const path = pathOf(request);
  return NEEDS_ESCAPING.test(path) ? JSON.stringify(path) : `"${path}"`;
}

/**
 * One log line per request, when its response is done: request id (`request_id`), method,
 * path without the query, status, endpoint, account and time taken, then the fields the route
 * added (`request.logFields`). Headers are not logged, so neither keys nor tokens can reach the
 * log this way.
 */
export const requestLogPlugin = globalPlugin(
  'svc-request-log',
  async (app, options: RequestLogPluginOptions) => {
    // The logger's bindings (pid, hostname) exactly as pino writes them after `time`; a logger
    // that has none is not pino, and gets its line through request.log.
    const base = (app.log as unknown as Record<symbol, unknown>)[pino.symbols.chindingsSym];
    const stream = typeof base === 'string' ? options.stream : undefined;
    app.decorateRequest('logFields', undefined);
    app.addHook('onResponse', (request, reply, done) => {
      if (!stream) {
        request.log.info(fields(request, reply), 'request');
      } else if ((request.log as Logger).isLevelEnabled('info')) {
        // The method is one Node's parser knows (letters only), the ids are ours: only the path may
        // need escaping.
        stream.write(
          `{"level":30,"time":${Date.now()}${base},"request_id":"${request.id}","method":"${request.method}","path":${pathJson(request)},"status":${reply.statusCode},"endpoint":${plain(endpointOf(request) ?? null)},"account_id":${plain(request.auth?.account.id ?? null)},"ms":${elapsedMs(reply)}${routeFieldsJson(request)},"msg":"request"}\n`,
        );
      }
      done();
    });
  },
);
