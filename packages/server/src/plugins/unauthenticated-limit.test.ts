import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../testing/test-server.js';

const built = mkdtempSync(join(tmpdir(), 'svc-dashboard-'));
writeFileSync(join(built, 'index.html'), '<!doctype html><title>svc dashboard</title>');
afterAll(() => rmSync(built, { recursive: true, force: true }));

let server: TestServer | undefined;
afterEach(async () => {
  await server?.app.close();
  server = undefined;
});

async function start(limits: Record<string, number> = {}, trustedProxies: string[] = []) {
  server = await createTestServer({ dashboardDir: built, options: { limits, trustedProxies } });
  return server;
}

const get = (
  url: string,
  options: { method?: string; remoteAddress?: string; headers?: Record<string, string> } = {},
) =>
  (server as TestServer).app.inject({
    method: (options.method ?? 'GET') as 'GET',
    url,
    remoteAddress: options.remoteAddress ?? '192.0.2.1',
    headers: options.headers ?? {},
  });

describe('requests without an account: a bucket per client address, X-RateLimit-* on every response', () => {
  it('key-less routes, the dashboard, unknown paths, wrong methods and malformed URLs all carry the headers', async () => {
    await start();
    const requests: [string, string, number][] = [
      ['GET', '/v2/health', 200],
      ['GET', '/v2/openapi.json', 200],
      ['GET', '/dashboard/', 200],
      ['GET', '/dashboard/nope.js', 404],
      ['GET', '/v2/nope', 404],
      ['GET', '/nope', 404],
      ['DELETE', '/v2/health', 404],
      ['GET', '/v2/geo/%E0%A4%A', 400],
    ];
    let remaining = 100;
    for (const [method, url, status] of requests) {
      const response = await get(url, { method });
      expect(response.statusCode, `${method} ${url}`).toBe(status);
      expect(response.headers['x-ratelimit-limit'], `${method} ${url}`).toBe('100');
      remaining--;
      expect(response.headers['x-ratelimit-remaining'], `${method} ${url}`).toBe(String(remaining));
      expect(Number(response.headers['x-ratelimit-reset']), `${method} ${url}`).toBeGreaterThan(0);
    }
  });

  it('past the burst: 429 rate_limited with Retry-After for that address only; keyed calls keep their account bucket', async () => {
    const s = await start({ unauthenticatedBurst: 3, unauthenticatedPerSecond: 1 });
    const { liveKey } = await s.account('pro');
    for (let i = 0; i < 3; i++) expect((await get('/v2/health')).statusCode).toBe(200);
    const refused = await get('/v2/health');
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error.code).toBe('rate_limited');
    expect(refused.json().error.message).toMatch(/without an API key from this address/);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    expect((await get('/v2/nope')).statusCode).toBe(429);
    // Another address has its own bucket.
    expect((await get('/v2/health', { remoteAddress: '192.0.2.2' })).statusCode).toBe(200);
    // A keyed call from the refused address is limited by its account, not by this bucket.
    const keyed = await get('/v2/account', { headers: { 'x-api-key': liveKey.secret } });
    expect(keyed.statusCode).toBe(200);
    expect(keyed.headers['x-ratelimit-limit']).not.toBe('3');
    // The bucket refills at its rate.
    s.clock.now += 1000;
    expect((await get('/v2/health')).statusCode).toBe(200);
  });

  it('behind a trusted proxy each forwarded client has its own bucket', async () => {
    await start({ unauthenticatedBurst: 1 }, ['192.0.2.1']);
    const via = (client: string) => get('/v2/health', { headers: { 'x-forwarded-for': client } });
    expect((await via('198.51.100.1')).statusCode).toBe(200);
    expect((await via('198.51.100.1')).statusCode).toBe(429);
    expect((await via('198.51.100.2')).statusCode).toBe(200);
  });
});
