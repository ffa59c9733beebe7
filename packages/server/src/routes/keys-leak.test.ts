import { afterEach, describe, expect, it } from 'vitest';
import { fetchJson } from '../testing/fetch-json.js';
import { createTestServer, type TestServer } from '../testing/test-server.js';

/*
 * Issue 24 item 1 (an outside audit over real HTTP): rotating a leaked live key must contain the
 * leak. The old key keeps calling the API during its grace period but manages nothing, and
 * revoking it ends the keys made with it. Issue 28: the lock-out guard counts only live keys with
 * no end date. Over a real socket on 127.0.0.1, as the audit found it.
 */
describe('containing a leaked live key (rotation, revocation, the lock-out guard) over HTTP', () => {
  let server: TestServer;
  let base: string;
  afterEach(async () => {
    await server?.app.close();
  });

  async function start(): Promise<void> {
    server = await createTestServer();
    await server.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(server.app.server.address() as { port: number }).port}`;
  }

  /** The status and the JSON body (any shape) of one call over the socket. */
  const call = (method: 'GET' | 'POST' | 'DELETE', path: string, key: string, body?: unknown) =>
    fetchJson(base, method, path, key, body);

  /** True when the credential authenticates (GET /v2/account answers any working one). */
  const works = async (secret: string) => (await call('GET', '/v2/account', secret)).status === 200;

  it('a rotated-away key calls the API until its end but manages nothing, nor do its tokens', async () => {
    await start();
    const { liveKey: leaked } = await server.account();
    // Minted before the rotation: a management token of the leaked key.
    const early = await call('POST', '/v2/tokens', leaked.secret, {
      scopes: ['keys_create'],
      ttl_seconds: 3600,
    });
    expect(early.status).toBe(201);

    const rotation = await call('POST', `/v2/keys/${leaked.key.id}/rotate`, leaked.secret);
    expect(rotation.status).toBe(201);
    const replacement = rotation.body;
    expect(rotation.body.previous.status).toBe('expiring');

    // Running calls keep working: the grace period is for them.
    expect(await works(leaked.secret)).toBe(true);
    const plain = await call('POST', '/v2/tokens', leaked.secret);
    expect(plain.status).toBe(201);
    expect(plain.body.expires_at <= rotation.body.previous.expires_at).toBe(true);

    const attempts: Array<[string, 'GET' | 'POST' | 'DELETE', string, unknown]> = [
      ['create a permanent live key', 'POST', '/v2/keys', { environment: 'live' }],
      ['revoke the replacement', 'DELETE', `/v2/keys/${replacement.id}`, undefined],
      ['rotate the replacement', 'POST', `/v2/keys/${replacement.id}/rotate`, { grace_seconds: 0 }],
      ['rotate the webhook secret', 'POST', '/v2/account/webhook-secret/rotate', { grace_seconds: 0 }],
      ['list the keys', 'GET', '/v2/keys', undefined],
      ['mint a management token', 'POST', '/v2/tokens', { scopes: ['keys_create'], ttl_seconds: 600 }],
    ];
    for (const [what, method, path, body] of attempts) {
      const response = await call(method, path, leaked.secret, body);
      expect({ what, status: response.status }).toEqual({ what, status: 401 });
      expect(response.body.error.code).toBe('invalid_api_key');
      expect(response.body.error.message).toMatch(/manages no keys.*use the key that replaced it/);
    }
    // The management token minted before the rotation lost its power with its key.
    const byEarlyToken = await call('POST', '/v2/keys', early.body.token, { environment: 'live' });
    expect(byEarlyToken.status).toBe(401);
    expect(byEarlyToken.body.error.message).toMatch(/manages no keys/);

    // Nothing changed: the replacement is the only other live key, and it is in charge.
    expect(await works(replacement.secret)).toBe(true);
    const keys = (await call('GET', '/v2/keys', replacement.secret)).body.data;
    expect(keys.filter((key: { environment: string }) => key.environment === 'live')).toHaveLength(2);
    expect((await call('POST', '/v2/account/webhook-secret/rotate', replacement.secret)).status).toBe(201);
  });

  it('revoking a key revokes the keys made with it (and theirs), names them, and ends their tokens', async () => {
    await start();
    const { liveKey: leaked, testKey } = await server.account();
    // What a thief does with the key before the owner notices: keys of its own, one through a
    // management token, one made by a key it made.
    const made = (await call('POST', '/v2/keys', leaked.secret, { environment: 'live', name: 'thief' })).body;
    expect(made.created_by).toBe(leaked.key.id);
    const token = (await call('POST', '/v2/tokens', leaked.secret, { scopes: ['keys_create'] })).body.token;
    const viaToken = (await call('POST', '/v2/keys', token, { environment: 'test' })).body;
    expect(viaToken.created_by).toBe(leaked.key.id);
    const grandchild = (await call('POST', '/v2/keys', made.secret, { environment: 'live' })).body;
    expect(grandchild.created_by).toBe(made.id);
    const grandchildToken = (await call('POST', '/v2/tokens', grandchild.secret)).body.token;
    // A key rotated by another key is that key's making too.
    const rotatedTest = (await call('POST', `/v2/keys/${testKey.key.id}/rotate`, leaked.secret)).body;
    expect(rotatedTest.created_by).toBe(leaked.key.id);

    // The owner rotates the key (the new key takes its place: not made with it), then revokes it.
    const replacement = (await call('POST', `/v2/keys/${leaked.key.id}/rotate`, leaked.secret)).body;
    expect(replacement.created_by).toBeNull();
    const revoke = await call('DELETE', `/v2/keys/${leaked.key.id}`, replacement.secret);
    expect(revoke.status).toBe(200);
    expect(revoke.body).toMatchObject({ id: leaked.key.id, status: 'revoked' });
    expect(revoke.body.also_revoked.map((key: { id: string }) => key.id).sort()).toEqual(
      [made.id, viaToken.id, grandchild.id, rotatedTest.id].sort(),
    );
    for (const key of revoke.body.also_revoked) expect(key.status).toBe('revoked');

    for (const secret of [leaked.secret, made.secret, viaToken.secret, grandchild.secret, grandchildToken]) {
      expect(await works(secret)).toBe(false);
    }
    expect(await works(replacement.secret)).toBe(true);
    // The account's own test key was rotated by the thief; its grace still runs for the owner.
    expect(await works(testKey.secret)).toBe(true);
  });

  it('the lock-out guard counts only live keys with no end date (a rotation in progress)', async () => {
    await start();
    const { liveKey } = await server.account();
    const replacement = (await call('POST', `/v2/keys/${liveKey.key.id}/rotate`, liveKey.secret)).body;
    // The old key still works for a day, but it manages nothing and then stops: revoking the
    // replacement would leave the account to the operator.
    const refused = await call('DELETE', `/v2/keys/${replacement.id}`, replacement.secret);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/no live key without an end date/),
    });
    expect(await works(replacement.secret)).toBe(true);

    // Ending the grace early is fine: the replacement stays in charge.
    const early = await call('DELETE', `/v2/keys/${liveKey.key.id}`, replacement.secret);
    expect(early.status).toBe(200);
    expect(early.body.also_revoked).toEqual([]);

    // A key made with the only key in charge dies with it, so that revoke is refused too.
    const second = (await call('POST', '/v2/keys', replacement.secret, { environment: 'live' })).body;
    const cascade = await call('DELETE', `/v2/keys/${replacement.id}`, second.secret);
    expect(cascade.status).toBe(400);
    expect(cascade.body.error.message).toMatch(/with the 1 key\(s\) made with it/);
    server.clock.now += 2 * 86_400_000;
    expect(await works(replacement.secret)).toBe(true);
    expect(await works(second.secret)).toBe(true);
  });

  it('a rotated webhook secret keeps signing for a day unless the caller asks for no grace', async () => {
    await start();
    const { liveKey } = await server.account();
    const now = server.clock.now;
    const day = new Date(now + 86_400_000).toISOString();
    const noBody = await call('POST', '/v2/account/webhook-secret/rotate', liveKey.secret);
    expect(noBody.body.previous_expires_at).toBe(day);
    const empty = await call('POST', '/v2/account/webhook-secret/rotate', liveKey.secret, {});
    expect(empty.body.previous_expires_at).toBe(day);
    expect((await call('GET', '/v2/account', liveKey.secret)).body.webhook_secrets).toHaveLength(3);
    const none = await call('POST', '/v2/account/webhook-secret/rotate', liveKey.secret, {
      grace_seconds: 0,
    });
    expect(none.body.previous_expires_at).toBe(new Date(now).toISOString());
    const left = (await call('GET', '/v2/account', liveKey.secret)).body.webhook_secrets;
    expect(left.map((secret: { id: string }) => secret.id)).toEqual([none.body.id]);
  });
});
