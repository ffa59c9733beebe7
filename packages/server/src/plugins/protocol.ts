import type { IncomingMessage } from 'node:http';
import { ServiceError } from '@svc/core';
import { globalPlugin } from './global-plugin.js';
import { takeUnauthenticated } from './limits.js';

/** What HTTP itself says is wrong with a request the routes would otherwise see; null when nothing. */
export function protocolProblem(raw: IncomingMessage): string | null {
  // RFC 9112 §3.2: a server must answer 400 to an HTTP/1.1 request without Host (Node's own
  // answer has no body; server.ts lets such requests through to here).
  if (raw.httpVersion === '1.1' && raw.headers.host === undefined) {
    return 'an HTTP/1.1 request needs a Host header';
  }
  // RFC 9110 §10.1.1: an expectation other than 100-continue may be refused (Node's answer is a bare 417).
  const expect = raw.headers.expect;
  if (expect !== undefined && expect.trim().toLowerCase() !== '100-continue') {
    return `Expect: ${JSON.stringify(expect)} cannot be met; the only expectation served is 100-continue`;
  }
  return null;
}

/**
 * Answers the protocol's own errors in the spec's body, 400 `invalid_request` with a request id
 * and the client address's `X-RateLimit-*` headers, before authentication: an HTTP/1.1 request
 * without `Host`, and `Expect` other than `100-continue`. (Bytes that are not HTTP, CONNECT and
 * timeouts are answered on the socket, see http-server.ts.) Register after client-address.
 */
export const protocolPlugin = globalPlugin('svc-protocol', async (app) => {
  app.addHook('onRequest', (request, reply, done) => {
    const problem = protocolProblem(request.raw);
    if (problem === null) {
      done();
      return;
    }
    const refuse = () => done(new ServiceError('invalid_request', problem));
    const decided = takeUnauthenticated(app.svc, request, reply);
    if ('then' in decided) decided.then(refuse, refuse);
    else refuse();
  });
});
