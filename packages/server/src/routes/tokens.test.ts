import { afterEach, describe, expect, it } from 'vitest';
import { probeRoutes } from '../testing/probe-routes.js';
import { createTestServer, type TestServer } from '../testing/test-server.js';

describe('POST /v2/tokens', () => {
  let server: TestServer;
  afterEach(async () => {
    await server?.app.close();
  });

  it('exchanges a key for a tok_ token of the same account and environment, 1 h by default', async () => {
    server = await createTestServer({ routes: [probeRoutes] });
    const { account, testKey } = await server.account();
    const response = await server.call('POST', '/v2/tokens', testKey.secret);
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
    const used = await server.call('GET', '/test/verify_email', token.token);
    expect(used.json()).toEqual({ account_id: account.id, environment: 'test', token: true });
    server.clock.now += 3_600_000;
    expect((await server.call('GET', '/test/verify_email', token.token)).statusCode).toBe(401);
  });

  it('takes ttl_seconds (60 s to 24 h) and scopes; a token is refused outside them', async () => {
    server = await createTestServer({ routes: [probeRoutes] });
    const { liveKey } = await server.account();
    const response = await server.call('POST', '/v2/tokens', liveKey.secret, {
      ttl_seconds: 120,
      scopes: ['geo_ip'],
    });
    expect(response.statusCode).toBe(201);
    const token = response.json();
    expect(token).toMatchObject({ scopes: ['geo_ip'], expires_at: '2026-11-23T12:02:00.000Z' });
    expect((await server.call('GET', '/test/geo_ip', token.token)).statusCode).toBe(200);
    const outside = await server.call('GET', '/test/verify_email', token.token);
    expect(outside.statusCode).toBe(401);
    expect(outside.json().error.message).toMatch(/scopes \(geo_ip\) do not include verify_email/);

    for (const [body, field] of [
      [{ ttl_seconds: 59 }, /ttl_seconds/],
      [{ ttl_seconds: 86_401 }, /ttl_seconds/],
      [{ scopes: [] }, /scopes/],
      [
        { scopes: ['geo_ip', 'tokens_create'] },
        /scopes\[1\]: "tokens_create" is not an endpoint a token may call/,
      ],
      [
        { scopes: ['keys_list'], ttl_seconds: 3_601 },
        /ttl_seconds must be at most 3600 \(1 hour\) for a token with keys_list/,
      ],
      [{ scopes: ['nope'] }, /scopes\[0\]/],
      [{ ttl: 60 }, /ttl/],
    ] as const) {
      const refused = await server.call('POST', '/v2/tokens', liveKey.secret, body);
      expect(refused.statusCode, JSON.stringify(body)).toBe(400);
      expect(refused.json().error.code).toBe('invalid_request');
      expect(refused.json().error.message).toMatch(field);
    }
  });

  it('grants key and secret management only by name, from a live key, for an hour at most', async () => {
    server = await createTestServer();
    const { account, liveKey, testKey } = await server.account();
    // No scopes: every scope except management.
    const plain = (await server.call('POST', '/v2/tokens', liveKey.secret)).json().token;
    const refused = await server.call('GET', '/v2/keys', plain);
    expect(refused.statusCode).toBe(401);
    expect(refused.json().error.message).toMatch(/only with keys_list in its scopes/);

    const response = await server.call('POST', '/v2/tokens', liveKey.secret, {
      scopes: ['keys_list', 'keys_create', 'webhook_secret_rotate', 'account_get'],
    });
    expect(response.statusCode).toBe(201);
    const token = response.json().token;
    const list = await server.call('GET', '/v2/keys', token);
    expect(list.statusCode).toBe(200);
    expect(list.json().data.map((key: { id: string }) => key.id)).toContain(liveKey.key.id);
    const created = await server.call('POST', '/v2/keys', token, {
      environment: 'live',
      name: 'from a token',
    });
    expect(created.statusCode).toBe(201);
    expect(created.json().secret).toMatch(/^sk_live_/);
    expect((await server.call('POST', '/v2/account/webhook-secret/rotate', token, {})).statusCode).toBe(201);
    // Outside what it names: refused, although its key could.
    const revoke = await server.call('DELETE', `/v2/keys/${created.json().id}`, token);
    expect(revoke.statusCode).toBe(401);
    expect(revoke.json().error.message).toMatch(/only with keys_revoke in its scopes/);
    expect((await server.call('POST', '/v2/tokens', token)).statusCode).toBe(401);

    // A test key cannot grant management, whatever it names.
    const fromTest = await server.call('POST', '/v2/tokens', testKey.secret, { scopes: ['keys_list'] });
    expect(fromTest.statusCode).toBe(401);
    expect(fromTest.json().error.message).toMatch(
      /keys_list manages keys or secrets, which needs a live key/,
    );
    expect(account.id).toMatch(/^acct_/);
  });

  it('a token cannot mint tokens; a missing key is 401', async () => {
    server = await createTestServer();
    const { liveKey } = await server.account();
    const token = (await server.call('POST', '/v2/tokens', liveKey.secret)).json().token;
    const again = await server.call('POST', '/v2/tokens', token);
    expect(again.statusCode).toBe(401);
    expect(again.json().error.message).toMatch(/a token cannot call this endpoint/);
    const none = await server.app.inject({ method: 'POST', url: '/v2/tokens' });
    expect(none.statusCode).toBe(401);
    expect(none.json().error.code).toBe('invalid_api_key');
  });
});
