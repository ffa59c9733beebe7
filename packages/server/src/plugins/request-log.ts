import { endpointOf } from './auth.js';
import { globalPlugin } from './global-plugin.js';

/**
 * One log line per request, when its response is done: request id (`request_id`), method,
 * path without the query, status, endpoint, account and time taken. Headers are not logged,
 * so neither keys nor tokens can reach the log this way.
 */
export const requestLogPlugin = globalPlugin('svc-request-log', async (app) => {
  app.addHook('onResponse', (request, reply, done) => {
    const url = request.raw.url ?? '';
    const query = url.indexOf('?');
    request.log.info(
      {
        method: request.method,
        path: query < 0 ? url : url.slice(0, query),
        status: reply.statusCode,
        endpoint: endpointOf(request) ?? null,
        account_id: request.auth?.account.id ?? null,
        ms: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request',
    );
    done();
  });
});
