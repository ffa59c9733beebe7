import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { authenticate, mintToken, revokeKey } from '../control-plane/accounts.js';
import { probeRoutes } from '../testing/probe-routes.js';
import { createTestServer, type TestServer } from '../testing/test-server.js';

describe('auth plugin', () => {
  let server: TestServer;
  afterEach(async () => {
    await server?.app.close();
  });
  const start = async (authFailuresPerMinute = 20) => {
    server = await createTestServer({
      routes: [probeRoutes],
      options: { limits: { authFailuresPerMinute } },
    });
    return server;
  };
  const get = (url: string, key?: string) =>
    server.app.inject({ method: 'GET', url, headers: key === undefined ? {} : { 'x-api-key': key } });
  const refusal = (response: Awaited<ReturnType<typeof get>>) => {
    expect(response.statusCode).toBe(401);
    const body = response.json();
    expect(body.error.code).toBe('invalid_api_key');
    expect(body.error.request_id).toBe(response.headers['x-request-id']);
    return body.error.message as string;
  };

  it('a live key, a test key and a token authenticate; the route sees who called', async () => {
    await start();
    const { account, liveKey, testKey } = await server.account();
    const live = await get('/test/verify_email', liveKey.secret);
    expect(live.statusCode).toBe(200);
    expect(live.json()).toEqual({ account_id: account.id, environment: 'live', token: false });
    expect((await get('/test/verify_email', testKey.secret)).json()).toEqual({
      account_id: account.id,
      environment: 'test',
      token: false,
    });
    const deps = { controlPlane: server.store, now: () => server.clock.now };
    const auth = await authenticate(deps, testKey.secret);
    const { secret } = await mintToken(deps, auth!, {});
    expect((await get('/test/verify_email', secret)).json()).toEqual({
      account_id: account.id,
      environment: 'test',
      token: true,
    });
  });

  it('missing, malformed, unknown and revoked keys are 401 invalid_api_key, each saying which', async () => {
    await start();
    const { account, liveKey } = await server.account();
    expect(refusal(await get('/test/verify_email'))).toBe(
      'the X-API-Key header is missing; send your API key (sk_live_… or sk_test_…) or a token',
    );
    expect(refusal(await get('/test/verify_email', 'hunter2'))).toBe(
      'X-API-Key is not an API key or token (they start with sk_live_, sk_test_ or tok_)',
    );
    const unknown = `sk_live_${'a'.repeat(40)}`;
    expect(refusal(await get('/test/verify_email', unknown))).toBe(
      'the API key is unknown, revoked or expired',
    );
    await revokeKey(server.store, { accountId: account.id, keyId: liveKey.key.id, now: server.clock.now });
    expect(refusal(await get('/test/verify_email', liveKey.secret))).toBe(
      'the API key is unknown, revoked or expired',
    );
  });

  it('a token cannot call key endpoints, a test key cannot manage keys, a token stays in its scopes', async () => {
    await start();
    const { liveKey, testKey } = await server.account();
    const deps = { controlPlane: server.store, now: () => server.clock.now };
    const token = await mintToken(deps, (await authenticate(deps, liveKey.secret))!, { scopes: ['geo_ip'] });
    expect(refusal(await get('/test/tokens_create', token.secret))).toBe(
      'a token cannot call this endpoint; present an API key (sk_live_… or sk_test_…)',
    );
    expect(refusal(await get('/test/keys_list', testKey.secret))).toBe(
      'managing keys and secrets needs a live key (sk_live_…); a test key cannot',
    );
    expect(refusal(await get('/test/verify_email', token.secret))).toBe(
      "this token's scopes (geo_ip) do not include verify_email",
    );
    expect((await get('/test/geo_ip', token.secret)).statusCode).toBe(200);
    expect((await get('/test/tokens_create', liveKey.secret)).statusCode).toBe(200);
    expect((await get('/test/keys_list', liveKey.secret)).statusCode).toBe(200);
  });

  it('on one keep-alive connection, each request is answered for the key it presents', async () => {
    await start();
    const a = await server.account();
    const b = await server.account();
    await server.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = server.app.server.address() as AddressInfo;
    // One connection for every request below (a proxy's upstream connection carries many clients).
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const call = (key: string) =>
      new Promise<{ status: number; body: Record<string, unknown>; reused: boolean }>((resolve, reject) => {
        const req = request(
          { port, host: '127.0.0.1', path: '/test/verify_email', agent, headers: { 'x-api-key': key } },
          (res) => {
            let text = '';
            res.on('data', (chunk) => {
              text += chunk;
            });
            res.on('end', () =>
              resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), reused: req.reusedSocket }),
            );
          },
        );
        req.on('error', reject);
        req.end();
      });
    try {
      expect((await call(a.liveKey.secret)).body.account_id).toBe(a.account.id);
      const again = await call(a.liveKey.secret);
      expect(again).toMatchObject({ status: 200, reused: true, body: { account_id: a.account.id } });
      // Another key on the same connection is that key's account, and back again.
      expect(await call(b.liveKey.secret)).toMatchObject({
        reused: true,
        body: { account_id: b.account.id },
      });
      expect(await call(a.testKey.secret)).toMatchObject({
        body: { account_id: a.account.id, environment: 'test' },
      });
      // A guess one character off a key just used is refused.
      const guess = `${a.liveKey.secret.slice(0, -1)}${a.liveKey.secret.endsWith('a') ? 'b' : 'a'}`;
      expect(await call(a.liveKey.secret)).toMatchObject({ status: 200 });
      expect(await call(guess)).toMatchObject({
        status: 401,
        reused: true,
        body: { error: { code: 'invalid_api_key' } },
      });
      // A key revoked while its connection stays open is refused on it.
      await revokeKey(server.store, {
        accountId: b.account.id,
        keyId: b.liveKey.key.id,
        now: server.clock.now,
      });
      expect(await call(b.liveKey.secret)).toMatchObject({ status: 401, reused: true });
    } finally {
      agent.destroy();
    }
  });

  it('endpoints without a key need none', async () => {
    await start();
    const response = await get('/v2/health');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ status: 'ok', version: '2.3.1' });
  });

  it('failed attempts are limited per client address: past the limit 429 with Retry-After; a good key still passes', async () => {
    await start(3);
    const { liveKey, testKey } = await server.account();
    for (let i = 0; i < 3; i++) {
      const response = await get('/test/verify_email', `sk_live_${String(i).repeat(40)}`);
      expect(response.statusCode).toBe(401);
      expect(response.headers['x-ratelimit-limit']).toBe('3');
      expect(response.headers['x-ratelimit-remaining']).toBe(String(2 - i));
    }
    const locked = await get('/test/verify_email', `sk_live_${'9'.repeat(40)}`);
    expect(locked.statusCode).toBe(429);
    expect(locked.json().error).toMatchObject({
      code: 'rate_limited',
      message: 'too many failed authentications from this address; retry in 20 s',
    });
    expect(locked.headers['retry-after']).toBe('20');
    expect((await get('/test/verify_email', 'hunter2')).statusCode).toBe(429);
    // A good key never verified here is looked up and passes; a good key where it may not go gets
    // its own 401, not the address's 429.
    expect((await get('/test/verify_email', liveKey.secret)).statusCode).toBe(200);
    const misplaced = await server.call('GET', '/v2/keys', testKey.secret);
    expect(misplaced.statusCode).toBe(401);
    expect(misplaced.headers['x-ratelimit-remaining']).toBe('0');
    // Another address is not affected.
    const elsewhere = await server.app.inject({
      method: 'GET',
      url: '/test/verify_email',
      headers: { 'x-api-key': `sk_live_${'8'.repeat(40)}` },
      remoteAddress: '203.0.113.9',
    });
    expect(elsewhere.statusCode).toBe(401);
    server.clock.now += 20_000;
    expect((await get('/test/verify_email', `sk_live_${'7'.repeat(40)}`)).statusCode).toBe(401);
  });

  it('over HTTP, a neighbour guessing on the same address never gets a good key refused (issue 24 item 3)', async () => {
    // The audit: a good key's 2 s credential cache lapsed and it met the address's exhausted
    // failure bucket (429), while another client there sent a bad key every 2 s. Two clients on
    // separate connections from 127.0.0.1, the test's clock moving 2 s between rounds.
    await start(20);
    const { liveKey } = await server.account();
    await server.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = server.app.server.address() as AddressInfo;
    const neighbour = new Agent({ keepAlive: true, maxSockets: 1 });
    const customer = new Agent({ keepAlive: true, maxSockets: 1 });
    const call = (agent: Agent, key: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          { port, host: '127.0.0.1', path: '/test/verify_email', agent, headers: { 'x-api-key': key } },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', reject);
        req.end();
      });
    const customerStatuses: number[] = [];
    const neighbourStatuses: number[] = [];
    try {
      for (let round = 0; round < 60; round++) {
        neighbourStatuses.push(await call(neighbour, `sk_live_${'0'.repeat(39)}${round % 10}`));
        customerStatuses.push(await call(customer, liveKey.secret));
        server.clock.now += 2_001; // past CREDENTIAL_CACHE_MS: the good key is looked up again
      }
    } finally {
      neighbour.destroy();
      customer.destroy();
    }
    // The neighbour did exhaust the bucket (30 failures a minute against 20)...
    expect(neighbourStatuses).toContain(429);
    // ...and not one of the customer's 60 calls was refused.
    expect(customerStatuses.filter((status) => status !== 200)).toEqual([]);
  });

  it('refuses a failed-authentication limit below 1 when the server is built', async () => {
    await expect(createTestServer({ options: { limits: { authFailuresPerMinute: 0 } } })).rejects.toThrow(
      'createServer options: limits.authFailuresPerMinute must be an integer of at least 1, got 0',
    );
  });

  it('good keys never count as failures', async () => {
    await start(2);
    const { liveKey } = await server.account();
    for (let i = 0; i < 5; i++)
      expect((await get('/test/verify_email', liveKey.secret)).statusCode).toBe(200);
  });
});
