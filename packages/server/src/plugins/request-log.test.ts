import { type AddressInfo, connect } from 'node:net';
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuthContext } from '../context.js';
import { generateRequestId } from './request-id.js';
import { type RequestLogPluginOptions, requestLogPlugin } from './request-log.js';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

/** A Fastify app with pino writing to `lines`, the request-log plugin, and two routes. */
async function start(
  lines: string[],
  level: string,
  own: (stream: RequestLogPluginOptions['stream']) => RequestLogPluginOptions,
) {
  // The request lines only (not Fastify's "Server listening").
  const stream = {
    write: (line: string) => {
      if (JSON.parse(line).msg === 'request') lines.push(line);
    },
  };
  // As createServer has it: the request id logged as request_id, no request lines of Fastify's own.
  const app = Fastify({
    logger: { level, stream },
    genReqId: generateRequestId,
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
  });
  apps.push(app);
  app.decorateRequest('auth', null);
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.headers['x-account']) {
      request.auth = { account: { id: request.headers['x-account'] } } as unknown as AuthContext;
    }
    done();
  });
  await app.register(requestLogPlugin, own(stream));
  app.get('/v2/geo/:ip', { config: { endpoint: 'geo_ip' } }, async () => ({ ok: true }));
  // A route that adds its own fields to the line (as the enrichment routes do).
  app.get('/v2/noted', async (request) => {
    request.logFields = { outcome: 'no_match', adapters: { website: 'error:upstream', 'a"b': 'miss' } };
    return { ok: true };
  });
  app.get('/*', async (_request, reply) => reply.code(404).send({ missing: true }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  return app;
}

const requests = [
  '/v2/geo/8.8.8.8?lang=de',
  '/v2/geo/8.8.8.8',
  // Characters JSON must escape (a quote, a backslash), as Node passes them on unencoded.
  '/v1/a"b\\c|{}',
  '/v2/noted',
];

/** Sends `GET path` over a socket as written (no client normalizes it) and waits for the answer. */
function rawGet(app: FastifyInstance, path: string, account?: string): Promise<void> {
  const { port } = app.server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () =>
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: x\r\n${account ? `X-Account: ${account}\r\n` : ''}Connection: close\r\n\r\n`,
        'latin1',
      ),
    );
    socket.on('data', () => {});
    socket.on('end', () => resolve());
    socket.on('error', reject);
  });
}

describe('request-log plugin', () => {
  it('writes the same line itself to the logger stream as through request.log.info, field for field and in order', async () => {
    const direct: string[] = [];
    const viaPino: string[] = [];
    const before = Date.now();
    const fast = await start(direct, 'info', (stream) => ({ stream }));
    const slow = await start(viaPino, 'info', () => ({}));
    const account = 'acct_0123456789abcdefghjkmnpqrstvwxyz01';
    for (const [i, path] of requests.entries()) {
      await rawGet(fast, path, i === 0 ? account : undefined);
      await rawGet(slow, path, i === 0 ? account : undefined);
    }
    // The server logs after the answer is sent: wait for the lines.
    await expect.poll(() => direct.length + viaPino.length).toBe(8);
    expect(direct).toHaveLength(4);
    expect(viaPino).toHaveLength(4);
    for (const [i, line] of direct.entries()) {
      expect(line.endsWith('}\n')).toBe(true);
      const mine = JSON.parse(line);
      const pinos = JSON.parse(viaPino[i] as string);
      expect(Object.keys(mine)).toEqual(Object.keys(pinos));
      // The time the line was written.
      expect(mine.time).toBeGreaterThanOrEqual(before);
      expect(mine.time).toBeLessThanOrEqual(Date.now());
      expect(mine.time).toBeGreaterThanOrEqual(pinos.time - 1_000);
      // The request id and timings differ between the two servers; everything else is equal.
      for (const key of ['time', 'ms', 'request_id']) {
        expect(typeof mine[key]).toBe(typeof pinos[key]);
        delete mine[key];
        delete pinos[key];
      }
      expect(mine).toEqual(pinos);
    }
    expect(JSON.parse(direct[0] as string)).toMatchObject({
      level: 30,
      pid: process.pid,
      method: 'GET',
      path: '/v2/geo/8.8.8.8',
      status: 200,
      endpoint: 'geo_ip',
      account_id: account,
      msg: 'request',
    });
    expect(JSON.parse(direct[1] as string)).toMatchObject({ endpoint: 'geo_ip', account_id: null });
    expect(JSON.parse(direct[2] as string)).toMatchObject({
      path: '/v1/a"b\\c|{}',
      status: 404,
      endpoint: null,
    });
    // The route's own fields come after the standard ones, before the message.
    const noted = JSON.parse(direct[3] as string);
    expect(noted).toMatchObject({
      outcome: 'no_match',
      adapters: { website: 'error:upstream', 'a"b': 'miss' },
    });
    expect(Object.keys(noted).slice(-3)).toEqual(['outcome', 'adapters', 'msg']);
  });

  it('writes nothing itself when the logger is above info', async () => {
    const lines: string[] = [];
    const app = await start(lines, 'warn', (stream) => ({ stream }));
    await rawGet(app, '/v2/geo/8.8.8.8');
    app.log.level = 'info';
    await rawGet(app, '/v2/geo/1.1.1.1');
    // Lines are written in the order the requests end: once the second request's line is there,
    // a line of the first would be too.
    await expect.poll(() => lines.some((line) => line.includes('/v2/geo/1.1.1.1'))).toBe(true);
    expect(lines).toHaveLength(1);
  });
});
