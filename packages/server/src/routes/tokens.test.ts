import { afterEach, describe, expect, it } from 'vitest';
import { probeRoutes } from '../testing/probe-routes.js';
import { createTestServer, type TestServer } from '../testing/test-server.js';

describe('POST /v2/tokens', () => {
  let server: TestServer;
  afterEach(async () => {
    await server?.app.close();
  });
  const call = (method: 'GET' | 'POST', url: string, key: string, body?: unknown) =>
    server.app.inject({
      method,
      url,
      headers: { 'x-api-key': key },
      ...(body === undefined ? {} : { payload: body as object }),
    });

  it('exchanges a key for a tok_ token of the same account and environment, 1 h by default', async () => {
    server = await createTestServer({ routes: [probeRoutes] });
    const { account, testKey } = await server.account();
    const response = await call('POST', '/v2/tokens', testKey.secret);
    expect(response.statusCode).toBe(201);
    const token = response.json();
    expect(token).toEqual({
      id: expect.stringMatching(/^tok_/),
      token: expect.stringMatching(/^tok_[0-9a-z]{40}$/),
      environment: 'test',
      key_id: testKey.key.id,
      scopes: null,
      created_at: '2026-11-23T12:00:00.000Z',
      expires_at: '2026-11-23T13:00:00.000Z',
    });
    const used = await call('GET', '/test/verify_email', token.token);
    expect(used.json()).toEqual({ account_id: account.id, environment: 'test', token: true });
    server.clock.now += 3_600_000;
    expect((await call('GET', '/test/verify_email', token.token)).statusCode).toBe(401);
  });

  it('takes ttl_seconds (60 s to 24 h) and scopes; a token is refused outside them', async () => {
    server = await createTestServer({ routes: [probeRoutes] });
    const { liveKey } = await server.account();
    const response = await call('POST', '/v2/tokens', liveKey.secret, {
      ttl_seconds: 120,
      scopes: ['geo_ip'],
    });
    expect(response.statusCode).toBe(201);
    const token = response.json();
    expect(token).toMatchObject({ scopes: ['geo_ip'], expires_at: '2026-11-23T12:02:00.000Z' });
    expect((await call('GET', '/test/geo_ip', token.token)).statusCode).toBe(200);
    const outside = await call('GET', '/test/verify_email', token.token);
    expect(outside.statusCode).toBe(401);
    expect(outside.json().error.message).toMatch(/scopes \(geo_ip\) do not include verify_email/);

    for (const [body, field] of [
      [{ ttl_seconds: 59 }, /ttl_seconds/],
      [{ ttl_seconds: 86_401 }, /ttl_seconds/],
      [{ scopes: [] }, /scopes/],
      [{ scopes: ['geo_ip', 'keys_list'] }, /scopes\[1\]: "keys_list" is not an endpoint a token may call/],
      [{ scopes: ['nope'] }, /scopes\[0\]/],
      [{ ttl: 60 }, /ttl/],
    ] as const) {
      const refused = await call('POST', '/v2/tokens', liveKey.secret, body);
      expect(refused.statusCode, JSON.stringify(body)).toBe(400);
      expect(refused.json().error.code).toBe('invalid_request');
      expect(refused.json().error.message).toMatch(field);
    }
  });

  it('a token cannot mint tokens; a missing key is 401', async () => {
    server = await createTestServer();
    const { liveKey } = await server.account();
    const token = (await call('POST', '/v2/tokens', liveKey.secret)).json().token;
    const again = await call('POST', '/v2/tokens', token);
    expect(again.statusCode).toBe(401);
    expect(again.json().error.message).toMatch(/a token cannot call this endpoint/);
    const none = await server.app.inject({ method: 'POST', url: '/v2/tokens' });
    expect(none.statusCode).toBe(401);
    expect(none.json().error.code).toBe('invalid_api_key');
  });
});
