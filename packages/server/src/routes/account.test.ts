import { afterEach, describe, expect, it } from 'vitest';
import { webhookSigningSecrets } from '../control-plane/accounts.js';
import { createTestServer, type TestServer } from '../testing/test-server.js';

describe('GET /v2/account, POST /v2/account/webhook-secret/rotate', () => {
  let server: TestServer;
  afterEach(async () => {
    await server?.app.close();
  });

  it("shows the caller's account: plan and limits, the month's use and allowance left, secret prefixes", async () => {
    server = await createTestServer();
    const { account, testKey, liveKey, webhookSecret } = await server.account('free', 'Acme');
    await server.store.recordUsage(account.id, 'geo_ip', '2026-11', 40);
    const response = await server.call('GET', '/v2/account', testKey.secret);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      id: account.id,
      name: 'Acme',
      created_at: '2026-11-23T12:00:00.000Z',
      environment: 'test',
      plan: {
        id: 'free',
        name: 'Free',
        rate_per_second: 1,
        burst: 10,
        monthly_allowance: 1000,
        endpoints: null,
        bill_company_misses: false,
      },
      usage: { month: '2026-11', units: 40, remaining: 960 },
      webhook_secrets: [
        {
          id: webhookSecret.record.id,
          prefix: webhookSecret.secret.slice(0, 10),
          created_at: '2026-11-23T12:00:00.000Z',
          expires_at: null,
        },
      ],
    });
    expect(response.body).not.toContain(webhookSecret.secret);
    expect(response.body).not.toContain(webhookSecret.record.sealed);
    expect((await server.call('GET', '/v2/account', liveKey.secret)).json().environment).toBe('live');
    const unlimited = await server.account('self_hosted');
    expect((await server.call('GET', '/v2/account', unlimited.liveKey.secret)).json().usage).toEqual({
      month: '2026-11',
      units: 0,
      remaining: null,
    });
  });

  it('rotates the webhook secret: the new one in the 201 only, both sign until the grace period ends', async () => {
    server = await createTestServer();
    const { account, testKey, liveKey, webhookSecret } = await server.account();
    const byTest = await server.call('POST', '/v2/account/webhook-secret/rotate', testKey.secret, {});
    expect(byTest.statusCode).toBe(401);
    server.clock.now += 1000; // newest first is by creation time

    const response = await server.call('POST', '/v2/account/webhook-secret/rotate', liveKey.secret, {
      grace_seconds: 3600,
    });
    expect(response.statusCode).toBe(201);
    const rotated = response.json();
    expect(rotated).toEqual({
      id: expect.stringMatching(/^wsec_/),
      prefix: rotated.secret.slice(0, 10),
      created_at: '2026-11-23T12:00:01.000Z',
      expires_at: null,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
      previous_expires_at: '2026-11-23T13:00:01.000Z',
    });
    const deps = { controlPlane: server.store, secrets: server.app.svc.secrets, now: () => server.clock.now };
    expect(await webhookSigningSecrets(deps, account.id)).toEqual([rotated.secret, webhookSecret.secret]);
    const shown = (await server.call('GET', '/v2/account', liveKey.secret)).json().webhook_secrets;
    expect(shown.map((secret: { id: string }) => secret.id)).toEqual([rotated.id, webhookSecret.record.id]);
    expect(shown[1].expires_at).toBe('2026-11-23T13:00:01.000Z');

    server.clock.now += 3_600_000;
    expect(await webhookSigningSecrets(deps, account.id)).toEqual([rotated.secret]);
    // No body: the default grace period of a day.
    const again = await server.call('POST', '/v2/account/webhook-secret/rotate', liveKey.secret);
    expect(again.statusCode).toBe(201);
    expect(again.json().previous_expires_at).toBe('2026-11-24T13:00:01.000Z');
    const bad = await server.call('POST', '/v2/account/webhook-secret/rotate', liveKey.secret, {
      grace_seconds: -1,
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.message).toMatch(/grace_seconds/);
  });
});
