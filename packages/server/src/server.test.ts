import { randomBytes } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { createVerifier } from '@svc/email-verifier';
import Fastify, { type FastifyPluginAsync } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createAccount, syncPlans } from './control-plane/accounts.js';
import { createServerSecrets } from './control-plane/secrets.js';
import { createMemoryControlPlaneStore } from './control-plane/stores/memory.js';
import {
  authPlugin,
  clientAddressPlugin,
  createServerContext,
  errorsPlugin,
  limitsPlugin,
  requestIdPlugin,
  usagePlugin,
} from './plugins/index.js';
import { probeRoutes } from './testing/probe-routes.js';
import {
  createTestServer,
  fixtureGeoResolver,
  GEO_FIXTURES,
  type TestServer,
} from './testing/test-server.js';

const big: FastifyPluginAsync = async (app) => {
  app.get('/test/big', { config: { endpoint: 'health' } }, async () => ({ data: 'x'.repeat(5000) }));
};

// A route of an endpoint whose answers are small (see SMALL_ANSWERS), answering big all the same,
// and a POST route that echoes its body.
const declaredSmall: FastifyPluginAsync = async (app) => {
  app.get('/test/declared-small', { config: { endpoint: 'geo_ip' } }, async () => ({
    data: 'x'.repeat(5000),
  }));
  app.post('/test/echo', { config: { endpoint: 'health' } }, async (request) => request.body);
};

describe('createServer', () => {
  let server: TestServer;
  afterEach(async () => {
    await server?.app.close();
  });

  it('GET /v2/health: ready, the API version, the geo databases with type, build date and source', async () => {
    server = await createTestServer({
      geoDatabases: () => [
        { id: 'city', type: 'GeoIP2-City', built_at: Date.UTC(2026, 0, 2), source: '/data/city.mmdb' },
      ],
    });
    const response = await server.app.inject({ method: 'GET', url: '/v2/health' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      status: 'ok',
      failing: [],
      checks: [{ id: 'control_plane', status: 'ok', message: 'The control-plane store answers.' }],
      version: '2.3.1',
      time: '2026-11-23T12:00:00.000Z',
      geo: {
        databases: [
          {
            id: 'city',
            type: 'GeoIP2-City',
            built_at: '2026-01-02T00:00:00.000Z',
            // No absolute path for a caller without the owner's key: the file name.
            source: 'city.mmdb',
          },
        ],
      },
    });
  });

  it('GET /v2/health without descriptions given lists what the geo resolver serves (every file, its type, date, source)', async () => {
    server = await createTestServer();
    const response = await server.app.inject({ method: 'GET', url: '/v2/health' });
    expect(response.json().geo.databases).toEqual([
      {
        id: 'geoip2-city',
        type: 'GeoIP2-City',
        built_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/),
        source: 'GeoIP2-City-Test.mmdb',
      },
    ]);
    // The owner account sees where the file is.
    const { liveKey } = await server.account();
    const owner = await server.app.inject({ url: '/v2/health', headers: { 'x-api-key': liveKey.secret } });
    expect(owner.json().geo.databases[0].source).toBe(`${GEO_FIXTURES}GeoIP2-City-Test.mmdb`);
  });

  it('GET /v2/health is 500 internal_error when the control-plane store does not answer', async () => {
    server = await createTestServer();
    await server.store.close();
    const response = await server.app.inject({ method: 'GET', url: '/v2/health' });
    expect(response.statusCode).toBe(500);
    expect(response.json().error.code).toBe('internal_error');
  });

  it('compresses large responses for clients that accept it, leaves small ones alone', async () => {
    server = await createTestServer({ routes: [big] });
    const large = await server.app.inject({
      method: 'GET',
      url: '/test/big',
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(large.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(large.rawPayload).toString()).data).toHaveLength(5000);
    const small = await server.app.inject({
      method: 'GET',
      url: '/v2/health',
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(small.headers['content-encoding']).toBeUndefined();
  });

  it('small-answer endpoints get no compression hooks; POST bodies sent gzipped are still decompressed', async () => {
    server = await createTestServer({ routes: [big, declaredSmall] });
    const { liveKey } = await server.account();
    const declared = await server.app.inject({
      method: 'GET',
      url: '/test/declared-small',
      headers: { 'accept-encoding': 'gzip', 'x-api-key': liveKey.secret },
    });
    expect(declared.statusCode).toBe(200);
    expect(declared.headers['content-encoding']).toBeUndefined();
    const echoed = await server.app.inject({
      method: 'POST',
      url: '/test/echo',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      payload: gzipSync(JSON.stringify({ hello: 'world' })),
    });
    expect(echoed.statusCode).toBe(200);
    expect(echoed.json()).toEqual({ hello: 'world' });
  });

  it('CORS: none by default; configured origins get the headers a browser needs', async () => {
    server = await createTestServer();
    const none = await server.app.inject({
      method: 'GET',
      url: '/v2/health',
      headers: { origin: 'https://app.example' },
    });
    expect(none.headers['access-control-allow-origin']).toBeUndefined();
    await server.app.close();
    server = await createTestServer({ options: { cors: { origins: ['https://app.example'] } } });
    const preflight = await server.app.inject({
      method: 'OPTIONS',
      url: '/v2/verify/email',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-api-key',
      },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(preflight.headers['access-control-allow-headers']).toContain('X-API-Key');
    const error = await server.app.inject({
      method: 'GET',
      url: '/v2/nope',
      headers: { origin: 'https://app.example' },
    });
    expect(error.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(error.headers['access-control-expose-headers']).toContain('X-RateLimit-Remaining');
    const stranger = await server.app.inject({
      method: 'GET',
      url: '/v2/health',
      headers: { origin: 'https://evil.example' },
    });
    expect(stranger.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('metrics: off by default; at metrics.path, Prometheus text counting requests by endpoint and status', async () => {
    server = await createTestServer();
    expect((await server.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
    await server.app.close();
    server = await createTestServer({ options: { metrics: { path: '/metrics' } } });
    await server.app.inject({ method: 'GET', url: '/v2/health' });
    await server.app.inject({ method: 'GET', url: '/v2/nope' });
    const response = await server.app.inject({ method: 'GET', url: '/metrics' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/plain');
    expect(response.body).toContain('svc_http_requests_total{method="GET",endpoint="health",status="200"} 1');
    expect(response.body).toContain(
      'svc_http_requests_total{method="GET",endpoint="not_found",status="404"} 1',
    );
    expect(response.body).toContain('process_cpu_user_seconds_total');
  });

  it('listens on a real socket: the same spec answers over HTTP', async () => {
    server = await createTestServer();
    await server.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = server.app.server.address() as { port: number };
    const response = await fetch(`http://127.0.0.1:${port}/v2/verify/email`, { method: 'GET' });
    expect(response.status).toBe(404);
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });

  it('the plugins mount in a Fastify of your own (no createServer): ids, auth, limits, usage, spec errors', async () => {
    const controlPlane = createMemoryControlPlaneStore();
    const secrets = createServerSecrets(randomBytes(32));
    const svc = createServerContext({
      controlPlane,
      secrets,
      verifier: createVerifier(),
      geo: await fixtureGeoResolver(),
    });
    await syncPlans(controlPlane, svc.options.plans);
    const { account, liveKey } = await createAccount(svc, { name: 'mine', planId: 'pro' });
    const app = Fastify();
    app.decorate('svc', svc);
    for (const plugin of [
      errorsPlugin,
      requestIdPlugin,
      clientAddressPlugin,
      authPlugin,
      limitsPlugin,
      usagePlugin,
    ]) {
      await app.register(plugin);
    }
    await app.register(probeRoutes);
    try {
      const ok = await app.inject({
        method: 'GET',
        url: '/test/geo_ip',
        headers: { 'x-api-key': liveKey.secret },
      });
      expect(ok.statusCode).toBe(200);
      expect(ok.headers['x-request-id']).toMatch(/^req_/);
      expect(ok.headers['x-ratelimit-limit']).toBe('100');
      expect(await controlPlane.usedUnits(account.id, new Date().toISOString().slice(0, 7))).toBe(1);
      const refused = await app.inject({ method: 'GET', url: '/test/geo_ip' });
      expect(refused.statusCode).toBe(401);
      expect(refused.json().error.request_id).toBe(refused.headers['x-request-id']);
    } finally {
      await app.close();
    }
  });
});
