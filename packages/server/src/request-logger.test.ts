import Fastify, { type FastifyInstance, LogController } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { generateRequestId } from './plugins/request-id.js';
import { LazyRequestLogger, lazyRequestLoggerFactory } from './request-logger.js';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

/** A Fastify app as createServer sets up its logger, writing to `lines`; counts pino children made. */
function start(lines: Record<string, unknown>[]) {
  const app = Fastify({
    logger: { level: 'info', stream: { write: (line: string) => lines.push(JSON.parse(line)) } },
    genReqId: generateRequestId,
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
    childLoggerFactory: lazyRequestLoggerFactory,
  });
  apps.push(app);
  const made = { children: 0 };
  const child = app.log.child;
  // A function of its own `this`: pino's children inherit it, and must make children of themselves.
  app.log.child = function (this: typeof app.log, ...args: Parameters<typeof child>) {
    made.children++;
    return child.apply(this, args);
  } as typeof child;
  app.get('/quiet', async (request) => ({
    lazy: request.log instanceof LazyRequestLogger,
    level: request.log.level,
    debug: (request.log as LazyRequestLogger).isLevelEnabled('debug'),
  }));
  app.get('/debug', async (request) => {
    request.log.debug({ detail: 1 }, 'not at level info');
    return {};
  });
  app.get('/warn', async (request) => {
    request.log.warn({ code: 'upstream_timeout' }, 'slow upstream');
    request.log.child({ job: 'batch_1' }).info('from a child');
    return { bindings: (request.log as LazyRequestLogger).bindings() };
  });
  app.get('/chatty', { logLevel: 'debug' }, async (request) => {
    request.log.debug('debug on this route');
    return { lazy: request.log instanceof LazyRequestLogger };
  });
  app.get('/louder', async (request) => {
    request.log.level = 'debug';
    request.log.debug('now on for this request');
    return {};
  });
  return { app, made };
}

describe('the lazy request logger', () => {
  it('makes no pino child for a request that logs nothing, and answers level questions from the parent', async () => {
    const lines: Record<string, unknown>[] = [];
    const { app, made } = start(lines);
    const quiet = await app.inject({ method: 'GET', url: '/quiet' });
    expect(quiet.json()).toEqual({ lazy: true, level: 'info', debug: false });
    await app.inject({ method: 'GET', url: '/debug' });
    expect(made.children).toBe(0);
    expect(lines.filter((line) => line.msg === 'not at level info')).toEqual([]);
  });

  it('logs with the request id, through itself and through its children', async () => {
    const lines: Record<string, unknown>[] = [];
    const { app, made } = start(lines);
    const response = await app.inject({ method: 'GET', url: '/warn' });
    const id = response.json().bindings.request_id;
    expect(id).toMatch(/^req_/);
    expect(response.json()).toEqual({ bindings: { request_id: id } });
    // The request's child, then the handler's child of it (pino children inherit the counting `child`).
    expect(made.children).toBe(2);
    const warned = lines.find((line) => line.msg === 'slow upstream');
    expect(warned).toMatchObject({ level: 40, request_id: id, code: 'upstream_timeout' });
    expect(lines.find((line) => line.msg === 'from a child')).toMatchObject({
      level: 30,
      request_id: id,
      job: 'batch_1',
    });
  });

  it("gives a route with its own log level pino's child at once, and a level set on one request stays there", async () => {
    const lines: Record<string, unknown>[] = [];
    const { app } = start(lines);
    expect((await app.inject({ method: 'GET', url: '/chatty' })).json()).toEqual({ lazy: false });
    expect(lines.find((line) => line.msg === 'debug on this route')).toMatchObject({ level: 20 });
    await app.inject({ method: 'GET', url: '/louder' });
    expect(lines.find((line) => line.msg === 'now on for this request')).toMatchObject({ level: 20 });
    expect(app.log.level).toBe('info');
    expect((await app.inject({ method: 'GET', url: '/quiet' })).json()).toMatchObject({
      level: 'info',
      debug: false,
    });
  });
});
