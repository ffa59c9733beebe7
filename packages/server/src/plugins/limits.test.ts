import { afterEach, describe, expect, it } from 'vitest';
import { authenticate, mintToken } from '../control-plane/accounts.js';
import { probeRoutes } from '../testing/probe-routes.js';
import { createTestServer, type TestServer } from '../testing/test-server.js';

describe('limits plugin', () => {
  let server: TestServer;
  afterEach(async () => {
    await server?.app.close();
  });
  const start = async () => {
    server = await createTestServer({
      routes: [probeRoutes],
      options: {
        plans: {
          tight: {
            name: 'Tight',
            rate_per_second: 1,
            burst: 2,
            monthly_allowance: null,
            endpoints: ['geo_ip'],
          },
          small: {
            name: 'Small',
            rate_per_second: 1,
            burst: 100,
            monthly_allowance: 3,
            endpoints: ['geo_ip', 'verify_email'],
          },
        },
      },
    });
    return server;
  };
  const get = (url: string, key: string) => server.call('GET', url, key);

  it('the Free plan: 10 at once, then 429 rate_limited with Retry-After; headers on every response', async () => {
    await start();
    const { liveKey } = await server.account('free');
    for (let i = 0; i < 10; i++) {
      const ok = await get('/test/usage_get', liveKey.secret);
      expect(ok.statusCode).toBe(200);
      expect(ok.headers).toMatchObject({
        'x-ratelimit-limit': '10',
        'x-ratelimit-remaining': String(9 - i),
        'x-ratelimit-reset': String(i + 1),
      });
    }
    const refused = await get('/test/usage_get', liveKey.secret);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error).toEqual({
      code: 'rate_limited',
      message: 'the Free plan allows 1 requests per second (burst 10); retry in 1 s',
      request_id: refused.headers['x-request-id'],
    });
    expect(refused.headers).toMatchObject({
      'retry-after': '1',
      'x-ratelimit-limit': '10',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '10',
      'x-quota-limit': '1000',
      'x-quota-remaining': '1000',
    });
    server.clock.now += 1000;
    expect((await get('/test/usage_get', liveKey.secret)).statusCode).toBe(200);
  });

  it("one bucket per account: its test key, live key and tokens share it; another account's is separate", async () => {
    await start();
    const { liveKey, testKey } = await server.account('free');
    const deps = { controlPlane: server.store, now: () => server.clock.now };
    const token = await mintToken(deps, (await authenticate(deps, liveKey.secret))!, {});
    const secrets = [liveKey.secret, testKey.secret, token.secret];
    for (let i = 0; i < 10; i++)
      expect((await get('/test/usage_get', secrets[i % 3] as string)).statusCode).toBe(200);
    for (const secret of secrets) expect((await get('/test/usage_get', secret)).statusCode).toBe(429);
    const other = await server.account('free', 'other');
    expect((await get('/test/usage_get', other.liveKey.secret)).statusCode).toBe(200);
  });

  it('an endpoint outside the plan is 403 endpoint_not_in_plan, with the rate-limit headers', async () => {
    await start();
    const { liveKey } = await server.account('small');
    expect((await get('/test/geo_ip', liveKey.secret)).statusCode).toBe(200);
    const refused = await get('/test/verify_email_bulk', liveKey.secret);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toMatchObject({
      code: 'endpoint_not_in_plan',
      message: 'the Small plan does not include verify_email_bulk; upgrade the plan to call it',
    });
    expect(refused.headers['x-ratelimit-limit']).toBe('100');
    // Endpoints that are not plan-gated stay open.
    expect((await get('/test/usage_get', liveKey.secret)).statusCode).toBe(200);
  });

  it('the allowance: X-Quota-* count down, then 402 quota_exceeded on billable endpoints only; test keys are never refused', async () => {
    await start();
    const { liveKey, testKey } = await server.account('small');
    for (let i = 0; i < 3; i++) {
      const ok = await get('/test/geo_ip', liveKey.secret);
      expect(ok.statusCode).toBe(200);
      expect(ok.headers).toMatchObject({ 'x-quota-limit': '3', 'x-quota-remaining': String(2 - i) });
    }
    const refused = await get('/test/geo_ip', liveKey.secret);
    expect(refused.statusCode).toBe(402);
    expect(refused.json().error).toMatchObject({
      code: 'quota_exceeded',
      message: "the Small plan's allowance of 3 units this month (UTC) is used up",
    });
    expect(refused.headers).toMatchObject({
      'x-quota-limit': '3',
      'x-quota-remaining': '0',
      'x-ratelimit-limit': '100',
    });
    expect((await get('/test/usage_get', liveKey.secret)).statusCode).toBe(200);
    expect((await get('/test/geo_ip', testKey.secret)).statusCode).toBe(200);
    // A new month (UTC) starts a new allowance.
    server.clock.now = Date.UTC(2026, 11, 1, 0, 0, 0);
    expect((await get('/test/geo_ip', liveKey.secret)).headers['x-quota-remaining']).toBe('2');
  });

  it('assertAllowance refuses a bulk request up front when its units would pass the allowance', async () => {
    await start();
    const { liveKey, testKey } = await server.account('small');
    await get('/test/geo_ip', liveKey.secret);
    const refused = await get('/test/verify_email?need=3&units=3', liveKey.secret);
    expect(refused.statusCode).toBe(402);
    expect(refused.json().error.message).toBe(
      "this request needs 3 units but 2 of the Small plan's 3 units this month (UTC) are left",
    );
    expect(await server.store.usedUnits((await server.store.listAccounts())[0]!.id, '2026-11')).toBe(1);
    const fits = await get('/test/verify_email?need=2&units=2', liveKey.secret);
    expect(fits.statusCode).toBe(200);
    expect(fits.headers['x-quota-remaining']).toBe('0');
    expect((await get('/test/verify_email?need=50&units=50', testKey.secret)).statusCode).toBe(200);
  });

  it('errors after authentication (validation, a handler ServiceError) carry the limit headers too', async () => {
    await start();
    const { liveKey } = await server.account('small');
    const invalid = await get('/test/geo_ip?units=-1', liveKey.secret);
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json().error).toMatchObject({
      code: 'invalid_request',
      message: 'query parameter units must be >= 0',
    });
    expect(invalid.headers).toMatchObject({
      'x-ratelimit-limit': '100',
      'x-ratelimit-remaining': '99',
      'x-quota-limit': '3',
    });
    const refused = await get('/test/geo_ip?need=9', liveKey.secret);
    expect(refused.statusCode).toBe(402);
    expect(refused.headers).toMatchObject({ 'x-ratelimit-remaining': '98', 'x-quota-remaining': '3' });
  });

  it('a plan without an allowance (decided without waiting, by the memory limiter) refuses the same: 429 past the burst, 403 outside the plan', async () => {
    await start();
    const { liveKey } = await server.account('tight');
    for (let i = 0; i < 2; i++) expect((await get('/test/geo_ip', liveKey.secret)).statusCode).toBe(200);
    const refused = await get('/test/geo_ip', liveKey.secret);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error.message).toBe(
      'the Tight plan allows 1 requests per second (burst 2); retry in 1 s',
    );
    expect(refused.headers).toMatchObject({
      'retry-after': '1',
      'x-ratelimit-limit': '2',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '2',
    });
    server.clock.now += 1000;
    const outside = await get('/test/verify_email_bulk', liveKey.secret);
    expect(outside.statusCode).toBe(403);
    expect(outside.json().error.code).toBe('endpoint_not_in_plan');
    expect(outside.headers['x-ratelimit-remaining']).toBe('0');
  });

  it('unlimited plans send no X-Quota headers', async () => {
    await start();
    const { liveKey } = await server.account('self_hosted');
    const ok = await get('/test/geo_ip', liveKey.secret);
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['x-quota-limit']).toBeUndefined();
    expect(ok.headers['x-ratelimit-limit']).toBe('1000');
  });
});
