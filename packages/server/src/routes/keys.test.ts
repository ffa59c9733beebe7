import { afterEach, describe, expect, it } from 'vitest';
import { authenticate, createKey, mintToken } from '../control-plane/accounts.js';
import { createTestServer, type TestServer } from '../testing/test-server.js';

describe('key routes: GET/POST /v2/keys, POST /v2/keys/{id}/rotate, DELETE /v2/keys/{id}', () => {
  let server: TestServer;
  afterEach(async () => {
    await server?.app.close();
  });
  /** 200 when the secret authenticates (GET /v2/account answers any working key). */
  const works = async (secret: string) =>
    (await server.call('GET', '/v2/account', secret)).statusCode === 200;

  it("lists the account's keys newest first, by prefix and last four characters, never a secret or hash", async () => {
    server = await createTestServer();
    const { liveKey, testKey } = await server.account();
    server.clock.now += 1000;
    const created = (
      await server.call('POST', '/v2/keys', liveKey.secret, { environment: 'live', name: 'ci' })
    ).json();
    const other = await server.account(); // another account's keys never appear
    const response = await server.call('GET', '/v2/keys', liveKey.secret);
    expect(response.statusCode).toBe(200);
    const { data } = response.json();
    expect(data).toHaveLength(3);
    expect(data[0]).toEqual({
      id: created.id,
      environment: 'live',
      name: 'ci',
      prefix: 'sk_live_',
      last4: created.secret.slice(-4),
      status: 'active',
      created_at: '2026-11-23T12:00:01.000Z',
      last_used_at: null,
      expires_at: null,
      revoked_at: null,
      rotated_from: null,
      created_by: liveKey.key.id,
    });
    expect(new Set(data.slice(1).map((key: { id: string }) => key.id))).toEqual(
      new Set([liveKey.key.id, testKey.key.id]),
    );
    expect(response.body).not.toContain(liveKey.secret);
    expect(response.body).not.toContain(liveKey.key.hash);
    expect(response.body).not.toContain(other.liveKey.key.id);
  });

  it('only live keys manage keys: a test key or a token gets 401', async () => {
    server = await createTestServer();
    const { liveKey, testKey } = await server.account();
    const byTest = await server.call('GET', '/v2/keys', testKey.secret);
    expect(byTest.statusCode).toBe(401);
    expect(byTest.json().error.message).toMatch(/needs a live key/);
    const deps = { controlPlane: server.store, now: () => server.clock.now };
    const { secret: token } = await mintToken(deps, (await authenticate(deps, liveKey.secret))!);
    for (const [method, url] of [
      ['GET', '/v2/keys'],
      ['POST', '/v2/keys'],
      ['POST', `/v2/keys/${liveKey.key.id}/rotate`],
      ['DELETE', `/v2/keys/${liveKey.key.id}`],
    ] as const) {
      const response = await server.call(
        method,
        url,
        token,
        method === 'POST' ? { environment: 'live' } : undefined,
      );
      expect(response.statusCode, `${method} ${url}`).toBe(401);
      expect(response.json().error.code).toBe('invalid_api_key');
    }
  });

  it('creates a key whose secret is in the 201 only, and that works at once', async () => {
    server = await createTestServer();
    const { liveKey } = await server.account();
    const response = await server.call('POST', '/v2/keys', liveKey.secret, { environment: 'test' });
    expect(response.statusCode).toBe(201);
    const key = response.json();
    expect(key).toMatchObject({ environment: 'test', name: null, prefix: 'sk_test_', status: 'active' });
    expect(key.secret).toMatch(/^sk_test_[0-9a-z]{40}$/);
    expect(key.last4).toBe(key.secret.slice(-4));
    expect((await server.call('GET', '/v2/account', key.secret)).json().environment).toBe('test');
    const listed = (await server.call('GET', '/v2/keys', liveKey.secret)).json().data;
    expect(listed.find((k: { id: string }) => k.id === key.id)).not.toHaveProperty('secret');

    const missing = await server.call('POST', '/v2/keys', liveKey.secret, { name: 'x' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/environment/),
    });
    const wrong = await server.call('POST', '/v2/keys', liveKey.secret, { environment: 'prod' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().error.message).toMatch(/environment/);
    const extra = await server.call('POST', '/v2/keys', liveKey.secret, { environment: 'live', admin: true });
    expect(extra.statusCode).toBe(400);
    expect(extra.json().error.message).toMatch(/admin/);
  });

  it('rotates: a new key now, the old one until grace_seconds pass (default a day)', async () => {
    server = await createTestServer();
    const { liveKey, testKey } = await server.account();
    const response = await server.call('POST', `/v2/keys/${testKey.key.id}/rotate`, liveKey.secret, {
      grace_seconds: 60,
    });
    expect(response.statusCode).toBe(201);
    const rotated = response.json();
    expect(rotated).toMatchObject({ environment: 'test', rotated_from: testKey.key.id, status: 'active' });
    expect(rotated.previous).toMatchObject({
      id: testKey.key.id,
      status: 'expiring',
      expires_at: '2026-11-23T12:01:00.000Z',
    });
    expect(await works(rotated.secret)).toBe(true);
    expect(await works(testKey.secret)).toBe(true);
    server.clock.now += 60_000;
    expect(await works(testKey.secret)).toBe(false);
    expect(await works(rotated.secret)).toBe(true);
    const listed = (await server.call('GET', '/v2/keys', liveKey.secret)).json().data;
    expect(listed.find((k: { id: string }) => k.id === testKey.key.id).status).toBe('expired');

    // No body: the default grace period. A key can rotate itself.
    const self = await server.call('POST', `/v2/keys/${liveKey.key.id}/rotate`, liveKey.secret);
    expect(self.statusCode).toBe(201);
    expect(self.json().previous.expires_at).toBe(new Date(server.clock.now + 86_400_000).toISOString());
    const newLive = self.json().secret;

    const ended = await server.call('POST', `/v2/keys/${testKey.key.id}/rotate`, newLive, {});
    expect(ended.statusCode).toBe(400);
    expect(ended.json().error.message).toMatch(/is expired; create a new key instead/);
    const tooLong = await server.call('POST', `/v2/keys/${rotated.id}/rotate`, newLive, {
      grace_seconds: 31 * 86_400,
    });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json().error.message).toMatch(/grace_seconds/);
    const other = await server.account();
    const foreign = await server.call('POST', `/v2/keys/${other.liveKey.key.id}/rotate`, newLive, {});
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().error.code).toBe('not_found');
    expect(await works(other.liveKey.secret)).toBe(true);
  });

  it("revokes a key and its tokens now; never the account's last working live key", async () => {
    server = await createTestServer();
    const { liveKey, testKey } = await server.account();
    const deps = { controlPlane: server.store, now: () => server.clock.now };
    const { secret: token } = await mintToken(deps, (await authenticate(deps, testKey.secret))!);
    expect(await works(token)).toBe(true);

    const response = await server.call('DELETE', `/v2/keys/${testKey.key.id}`, liveKey.secret);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      id: testKey.key.id,
      status: 'revoked',
      revoked_at: '2026-11-23T12:00:00.000Z',
    });
    expect(await works(testKey.secret)).toBe(false);
    expect(await works(token)).toBe(false);

    const last = await server.call('DELETE', `/v2/keys/${liveKey.key.id}`, liveKey.secret);
    expect(last.statusCode).toBe(400);
    expect(last.json().error.message).toMatch(
      /would leave the account no live key without an end date.*create another live key/,
    );
    expect(await works(liveKey.secret)).toBe(true);
    // A second live key made by an operator (not with liveKey, so it outlives it).
    const second = await createKey(server.store, {
      accountId: liveKey.key.account_id,
      environment: 'live',
      now: server.clock.now,
    });
    const revoked = await server.call('DELETE', `/v2/keys/${liveKey.key.id}`, second.secret);
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json().also_revoked).toEqual([]);
    expect(await works(liveKey.secret)).toBe(false);

    const other = await server.account();
    const foreign = await server.call('DELETE', `/v2/keys/${other.testKey.key.id}`, second.secret);
    expect(foreign.statusCode).toBe(404);
    expect(await works(other.testKey.secret)).toBe(true);
  });
});
