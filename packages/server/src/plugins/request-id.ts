import { createId } from '@svc/core';
import { globalPlugin } from './global-plugin.js';

/** Fastify's `genReqId`: every request gets a fresh `req_…` id (a client's own id is never used). */
export function generateRequestId(): string {
  return createId('req');
}

/**
 * Sends the request id as `X-Request-Id` on every response, errors and 404s included; the error
 * plugin puts the same id in the body. `createServer` sets `genReqId: generateRequestId`; in a
 * server of your own that does not, the id is replaced here so it always has the `req_` form.
 */
export const requestIdPlugin = globalPlugin('svc-request-id', async (app) => {
  app.addHook('onRequest', (request, reply, done) => {
    if (!request.id.startsWith('req_')) request.id = generateRequestId();
    reply.header('x-request-id', request.id);
    done();
  });
});
