import { connect } from 'node:net';
import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import { ServiceError } from '@svc/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTestServer, type TestServer } from '../testing/test-server.js';
import { setRequestDeadline } from './deadline.js';

const echo: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/v2/echo',
    {
      config: { endpoint: 'health' },
      schema: {
        body: Type.Object({
          email: Type.String(),
          options: Type.Optional(Type.Object({ probe: Type.Boolean() })),
          kind: Type.Optional(Type.Union([Type.Literal('a'), Type.Literal('b')])),
        }),
        querystring: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })) }),
      },
    },
    async (request) => ({ email: request.body.email }),
  );
  app.get('/v2/boom', { config: { endpoint: 'health' } }, async () => {
    throw new Error('disk on fire at /var/secret/path');
  });
  app.get('/v2/gone', { config: { endpoint: 'health' } }, async () => {
    throw new ServiceError('not_found', 'no batch batch_123');
  });
  app.get('/v2/slow', { config: { endpoint: 'health' } }, async (request) => {
    await new Promise((resolve) => setTimeout(resolve, 400));
    return { aborted: request.deadlineSignal.aborted };
  });
  app.get('/v2/late-signal', { config: { endpoint: 'health' } }, async (request) => {
    // The signal is first read after the deadline passed: it must be born aborted, with the reason.
    await new Promise((resolve) => setTimeout(resolve, 150));
    lateSignals.push(request.deadlineSignal);
    return {};
  });
  app.get('/v2/hang', { config: { endpoint: 'health' } }, async (request) => {
    // ?read=first: the signal is asked for before the client goes; otherwise only after.
    const first = (request.query as { read?: string }).read === 'first';
    if (first) goneSignals.push(request.deadlineSignal);
    // Held until the test lets it go (after its client left, or not).
    await new Promise((resolve) => hangReleases.push(resolve));
    if (!first) goneSignals.push(request.deadlineSignal);
    return {};
  });
  app.get('/v2/probing', { config: { endpoint: 'health', probes: true } }, async (request) => {
    await new Promise((resolve) => setTimeout(resolve, 150));
    return { aborted: request.deadlineSignal.aborted };
  });
  app.get('/v2/extended', { config: { endpoint: 'health' } }, async (request) => {
    setRequestDeadline(request, 1000);
    await new Promise((resolve) => setTimeout(resolve, 150));
    return { aborted: request.deadlineSignal.aborted };
  });
  app.get('/v2/bad-deadline', { config: { endpoint: 'health' } }, async (request) => {
    const refused: string[] = [];
    for (const ms of [Number.NaN, -1, Number.POSITIVE_INFINITY]) {
      try {
        setRequestDeadline(request, ms);
      } catch (error) {
        refused.push((error as Error).message);
      }
    }
    return { refused };
  });
  app.get('/v2/chatty', { config: { endpoint: 'health' } }, async (request) => {
    // A careless log call with every header: the redaction must still hide the key.
    request.log.info({ headers: request.headers, req: { headers: request.headers } }, 'chatty');
    return {};
  });
};

const lateSignals: AbortSignal[] = [];
const goneSignals: AbortSignal[] = [];
const hangReleases: ((value: unknown) => void)[] = [];
const REQ = /^req_[0-9a-z]{36}$/;

/** Every error response: the spec body and nothing else, the same request id in header and body. */
function expectSpecError(
  response: { statusCode: number; headers: Record<string, unknown>; body: string },
  status: number,
  code: string,
) {
  expect(response.statusCode).toBe(status);
  expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  const body = JSON.parse(response.body);
  expect(Object.keys(body)).toEqual(['error']);
  expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'request_id']);
  expect(body.error.code).toBe(code);
  expect(body.error.request_id).toMatch(REQ);
  expect(response.headers['x-request-id']).toBe(body.error.request_id);
  expect(response.body).not.toMatch(/statusCode|"stack"|FST_|\n\s+at /);
  return body.error.message as string;
}

describe('errors and request ids', () => {
  let server: TestServer;
  const lines: string[] = [];
  afterEach(async () => {
    vi.useRealTimers();
    await server?.app.close();
    lines.length = 0;
  });
  /**
   * Answers `url` on vitest's fake clock: the deadlines and the handlers' waits are timers, and
   * `ms` of them pass before the answer is read (no real time is waited).
   */
  const injectAfter = async (app: TestServer['app'], url: string, ms: number) => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const answer = app.inject({ method: 'GET', url });
    await vi.advanceTimersByTimeAsync(ms);
    return answer;
  };
  const start = async (limits = {}) => {
    server = await createTestServer({
      routes: [echo],
      options: { logLevel: 'info', limits: { jsonBodyBytes: 200, requestTimeoutMs: 100, ...limits } },
      logStream: { write: (line) => lines.push(line) },
    });
    return server.app;
  };

  it('every response carries a fresh req_ id, successes included', async () => {
    const app = await start();
    const a = await app.inject({ method: 'GET', url: '/v2/health' });
    const b = await app.inject({ method: 'GET', url: '/v2/health', headers: { 'x-request-id': 'mine' } });
    expect(a.headers['x-request-id']).toMatch(REQ);
    expect(b.headers['x-request-id']).toMatch(REQ);
    expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
  });

  it('an unknown route is 404 not_found pointing to /v2; /v1 is told it is retired', async () => {
    const app = await start();
    expect(expectSpecError(await app.inject({ method: 'GET', url: '/nope' }), 404, 'not_found')).toBe(
      'nothing at /nope; the API is under /v2 (GET /v2/openapi.json lists its endpoints)',
    );
    expect(
      expectSpecError(await app.inject({ method: 'POST', url: '/v1/verify/email' }), 404, 'not_found'),
    ).toBe('API v1 is retired; this server serves v2 under /v2 (GET /v2/openapi.json lists its endpoints)');
    expect(expectSpecError(await app.inject({ method: 'GET', url: '/v2/nope?x=1' }), 404, 'not_found')).toBe(
      'GET /v2/nope is not an endpoint of the API; GET /v2/openapi.json lists them',
    );
  });

  it('a wrong method is 404 naming the methods the path answers, with Allow', async () => {
    const app = await start();
    const response = await app.inject({ method: 'DELETE', url: '/v2/health' });
    expect(expectSpecError(response, 404, 'not_found')).toBe('/v2/health does not answer DELETE; use GET');
    expect(response.headers.allow).toBe('GET');
  });

  it('malformed JSON, an empty body and a wrong Content-Type are 400 invalid_request', async () => {
    const app = await start();
    const json = { 'content-type': 'application/json' };
    expect(
      expectSpecError(
        await app.inject({ method: 'POST', url: '/v2/echo', headers: json, payload: '{"email":' }),
        400,
        'invalid_request',
      ),
    ).toMatch(/^malformed JSON body: /);
    expect(
      expectSpecError(
        await app.inject({ method: 'POST', url: '/v2/echo', headers: json, payload: '' }),
        400,
        'invalid_request',
      ),
    ).toBe('the body is empty; send a JSON object');
    const xml = await app.inject({
      method: 'POST',
      url: '/v2/echo',
      headers: { 'content-type': 'text/xml' },
      payload: '<a/>',
    });
    expect(expectSpecError(xml, 400, 'invalid_request')).toBe(
      'Content-Type "text/xml" is not accepted here; send application/json',
    );
  });

  it('a missing or mistyped field is 400 invalid_request naming the field', async () => {
    const app = await start();
    const post = (payload: unknown, url = '/v2/echo') =>
      app.inject({ method: 'POST', url, payload: payload as object });
    expect(expectSpecError(await post({}), 400, 'invalid_request')).toBe('email is required');
    expect(expectSpecError(await post({ email: 5 }), 400, 'invalid_request')).toBe('email must be string');
    expect(
      expectSpecError(await post({ email: 'a@b.c', options: { probe: 'yes' } }), 400, 'invalid_request'),
    ).toBe('options.probe must be boolean');
    expect(expectSpecError(await post({ email: 'a@b.c', kind: 'c' }), 400, 'invalid_request')).toBe(
      'kind must be one of "a", "b"',
    );
    expect(expectSpecError(await post([1]), 400, 'invalid_request')).toBe('the body must be object');
    expect(expectSpecError(await post({ email: 'a@b.c' }, '/v2/echo?limit=0'), 400, 'invalid_request')).toBe(
      'query parameter limit must be >= 1',
    );
    expect((await post({ email: 'a@b.c' }, '/v2/echo?limit=5')).json()).toEqual({ email: 'a@b.c' });
  });

  it('a body over the limit is 400 invalid_request saying the limit', async () => {
    const app = await start();
    const response = await app.inject({
      method: 'POST',
      url: '/v2/echo',
      payload: { email: 'x'.repeat(300) },
    });
    expect(expectSpecError(response, 400, 'invalid_request')).toBe(
      "the body is larger than this endpoint's limit of 200 bytes",
    );
  });

  it('a failure nobody foresaw is 500 internal_error: no detail to the client, the cause in the log', async () => {
    const app = await start();
    const response = await app.inject({ method: 'GET', url: '/v2/boom' });
    expect(expectSpecError(response, 500, 'internal_error')).toBe(
      'the server failed to answer this request; it is safe to retry',
    );
    expect(response.body).not.toContain('disk on fire');
    const logged = lines.map((line) => JSON.parse(line)).find((line) => line.level === 50);
    expect(logged.err.message).toBe('disk on fire at /var/secret/path');
    expect(logged.err.stack).toContain('errors.test.ts');
    expect(logged.request_id).toBe(response.headers['x-request-id']);
  });

  it("a handler's ServiceError is sent with its own status, code and message", async () => {
    const app = await start();
    expect(expectSpecError(await app.inject({ method: 'GET', url: '/v2/gone' }), 404, 'not_found')).toBe(
      'no batch batch_123',
    );
  });

  it('a malformed URL is 400 invalid_request in the spec body', async () => {
    const app = await start();
    expect(expectSpecError(await app.inject({ method: 'GET', url: '/v2/%zz' }), 400, 'invalid_request')).toBe(
      'the URL is malformed (bad percent-encoding)',
    );
  });

  it('a request past its deadline is 503 upstream_timeout and its work is told to stop', async () => {
    const app = await start({ requestTimeoutMs: 50 });
    // The handler takes 400 ms; the deadline passes at 50.
    const response = await injectAfter(app, '/v2/slow', 50);
    expect(expectSpecError(response, 503, 'upstream_timeout')).toBe(
      'the request did not finish within 50 ms',
    );
  });

  it('a signal first read after the deadline is already aborted with the upstream_timeout reason', async () => {
    lateSignals.length = 0;
    const app = await start({ requestTimeoutMs: 50 });
    const response = await injectAfter(app, '/v2/late-signal', 50);
    expect(expectSpecError(response, 503, 'upstream_timeout')).toBe(
      'the request did not finish within 50 ms',
    );
    // The handler goes on after the 503 and reads the signal at 150 ms.
    expect(lateSignals).toEqual([]);
    await vi.advanceTimersByTimeAsync(100);
    const signal = lateSignals.at(-1);
    expect(signal?.aborted).toBe(true);
    expect(ServiceError.is(signal?.reason) && signal.reason.code).toBe('upstream_timeout');
  });

  it('a client that goes away aborts the signal, whether it was asked for before or after', async () => {
    const app = await start({ requestTimeoutMs: 5_000 });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    const connections = () =>
      new Promise<number>((resolve, reject) =>
        app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
      );
    for (const read of ['first', 'late']) {
      goneSignals.length = 0;
      // The request reaches its handler, which holds it; then the client closes the connection.
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(`GET /v2/hang?read=${read} HTTP/1.1\r\nHost: x\r\n\r\n`);
      });
      await expect.poll(() => hangReleases.length, { timeout: 5_000 }).toBe(1);
      socket.destroy();
      // The server has seen the connection close before the handler goes on.
      await expect.poll(connections, { timeout: 5_000 }).toBe(0);
      hangReleases.shift()?.(undefined);
      await expect.poll(() => goneSignals.length, { timeout: 5_000 }).toBe(1);
      const signal = goneSignals[0] as AbortSignal;
      await expect.poll(() => signal.aborted, { timeout: 5_000 }).toBe(true);
      expect((signal.reason as Error).message).toBe('the client closed the connection');
    }
    // A client that waits for its answer leaves the signal alone.
    goneSignals.length = 0;
    const answer = app.inject({ method: 'GET', url: '/v2/hang?read=first' });
    await expect.poll(() => hangReleases.length).toBe(1);
    hangReleases.shift()?.(undefined);
    const response = await answer;
    expect(response.statusCode).toBe(200);
    expect(goneSignals[0]?.aborted).toBe(false);
  });

  it('a probing route gets the longer deadline; setRequestDeadline replaces the deadline', async () => {
    const app = await start({ requestTimeoutMs: 50, probeRequestTimeoutMs: 1000 });
    // Both handlers answer at 150 ms, past the 50 ms deadline of other routes.
    const probing = await injectAfter(app, '/v2/probing', 150);
    expect(probing.statusCode).toBe(200);
    expect(probing.json()).toEqual({ aborted: false });
    const extended = await injectAfter(app, '/v2/extended', 150);
    expect(extended.statusCode).toBe(200);
    expect(extended.json()).toEqual({ aborted: false });
  });

  it('setRequestDeadline refuses a duration that is not a finite number of ms', async () => {
    const app = await start();
    const response = await app.inject({ method: 'GET', url: '/v2/bad-deadline' });
    expect(response.json()).toEqual({
      refused: [
        'a request deadline must be a finite number of ms ≥ 0, got NaN',
        'a request deadline must be a finite number of ms ≥ 0, got -1',
        'a request deadline must be a finite number of ms ≥ 0, got Infinity',
      ],
    });
  });

  it('keys in logged headers are redacted', async () => {
    const app = await start();
    const { liveKey } = await server.account();
    await app.inject({
      method: 'GET',
      url: '/v2/chatty',
      headers: { 'x-api-key': liveKey.secret, authorization: 'Bearer abc' },
    });
    const chatty = lines.map((line) => JSON.parse(line)).find((line) => line.msg === 'chatty');
    expect(chatty.headers['x-api-key']).toBe('[redacted]');
    // Fastify's request serializer drops headers from `req` altogether.
    expect(chatty.req.headers).toBeUndefined();
    expect(chatty.headers.authorization).toBe('[redacted]');
    expect(lines.join('\n')).not.toContain(liveKey.secret);
  });

  it('one log line per request with its id, and no key in any line', async () => {
    const app = await start();
    const { liveKey } = await server.account();
    const response = await app.inject({
      method: 'GET',
      url: '/v2/health',
      headers: { 'x-api-key': liveKey.secret },
    });
    const mine = lines
      .map((line) => JSON.parse(line))
      .filter((line) => line.request_id === response.headers['x-request-id']);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({
      msg: 'request',
      method: 'GET',
      path: '/v2/health',
      status: 200,
      endpoint: 'health',
    });
    expect(lines.join('\n')).not.toContain(liveKey.secret);
  });

  const rawExchange = (port: number, request: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(request));
      let data = '';
      socket.on('data', (chunk) => {
        data += chunk;
      });
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });

  it('headers too large for Node get a 400 in the spec body over the socket', async () => {
    const app = await start();
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    const raw = await rawExchange(
      port,
      `GET /v2/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(raw).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    const body = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));
    expect(body.error).toMatchObject({
      code: 'invalid_request',
      message: 'the request headers are too large',
    });
  });

  it('bytes that are not HTTP get a 400 in the spec body over the socket', async () => {
    const app = await start();
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('HELLO THERE\r\n\r\n'));
      let data = '';
      socket.on('data', (chunk) => {
        data += chunk;
      });
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    const body = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));
    expect(body.error).toMatchObject({
      code: 'invalid_request',
      message: 'the request is not valid HTTP/1.1',
    });
    expect(raw).toContain(`X-Request-Id: ${body.error.request_id}`);
  });
});
