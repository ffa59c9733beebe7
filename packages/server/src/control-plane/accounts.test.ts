import { randomBytes } from 'node:crypto';
import { ServiceError } from '@svc/core';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PLANS } from '../options.js';
import {
  type AccountDeps,
  authenticate,
  createAccount,
  createKey,
  MANAGEMENT_SCOPES,
  MAX_GRACE_SECONDS,
  mintToken,
  PLAN_CACHE_MS,
  revokeKey,
  rotateKey,
  rotateWebhookSecret,
  setAccountDisabled,
  setAccountPlan,
  syncPlans,
  TOKEN_SCOPES,
  webhookSigningSecrets,
} from './accounts.js';
import { createServerSecrets, hashSecret } from './secrets.js';
import type { Plan } from './store.js';
import { createMemoryControlPlaneStore } from './stores/memory.js';

const T0 = Date.parse('2026-11-23T10:00:00Z');

async function setup() {
  const clock = { now: T0 };
  const deps: AccountDeps = {
    controlPlane: createMemoryControlPlaneStore(),
    secrets: createServerSecrets(randomBytes(32)),
    now: () => clock.now,
  };
  await syncPlans(deps.controlPlane, DEFAULT_PLANS);
  const created = await createAccount(deps, { name: 'Acme', planId: 'pro' });
  return { deps, clock, store: deps.controlPlane, ...created };
}

async function rejection(promise: Promise<unknown>): Promise<ServiceError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
  if (!ServiceError.is(error)) throw error;
  return error;
}

describe('createAccount', () => {
  it('creates the account on its plan with a test key, a live key and a webhook secret, none stored in plaintext', async () => {
    const { deps, store, account, testKey, liveKey, webhookSecret } = await setup();
    expect(account).toMatchObject({ name: 'Acme', plan_id: 'pro', created_at: T0, disabled_at: null });
    expect(account.id).toMatch(/^acct_/);
    expect(testKey.secret).toMatch(/^sk_test_/);
    expect(liveKey.secret).toMatch(/^sk_live_/);
    expect(webhookSecret.secret).toMatch(/^whsec_/);
    // Both made in the same millisecond: their order is the ids', so sort by environment to compare.
    const keys = (await store.listKeys(account.id)).map((k) => [k.environment, k.hash, k.last4]).sort();
    expect(keys).toEqual([
      ['live', hashSecret(liveKey.secret), liveKey.secret.slice(-4)],
      ['test', hashSecret(testKey.secret), testKey.secret.slice(-4)],
    ]);
    const stored = JSON.stringify([
      await store.listKeys(account.id),
      await store.activeWebhookSecrets(account.id, T0),
    ]);
    for (const secret of [testKey.secret, liveKey.secret, webhookSecret.secret]) {
      expect(stored).not.toContain(secret);
      expect(stored).not.toContain(secret.slice(8));
    }
    expect(await webhookSigningSecrets(deps, account.id)).toEqual([webhookSecret.secret]);
  });

  it('refuses an unknown plan and a blank name, naming them', async () => {
    const { deps } = await setup();
    const plan = await rejection(createAccount(deps, { name: 'x', planId: 'gold' }));
    expect([plan.code, plan.message]).toEqual([
      'invalid_request',
      'unknown plan "gold"; plans: enterprise, free, pro, self_hosted',
    ]);
    expect((await rejection(createAccount(deps, { name: ' ', planId: 'free' }))).message).toMatch(
      /^name must be/,
    );
  });
});

describe('authenticate', () => {
  it('knows both keys, with their account, plan and environment, and records last use once a minute', async () => {
    const { deps, clock, store, account, testKey, liveKey } = await setup();
    const live = await authenticate(deps, liveKey.secret);
    expect(live).toMatchObject({ account, plan: DEFAULT_PLANS.pro, environment: 'live', token: null });
    expect(live?.key.id).toBe(liveKey.key.id);
    expect((await authenticate(deps, testKey.secret))?.environment).toBe('test');
    expect((await store.getKey(account.id, liveKey.key.id))?.last_used_at).toBe(T0);
    clock.now = T0 + 59_000;
    await authenticate(deps, liveKey.secret);
    expect((await store.getKey(account.id, liveKey.key.id))?.last_used_at).toBe(T0);
    clock.now = T0 + 60_000;
    await authenticate(deps, liveKey.secret);
    expect((await store.getKey(account.id, liveKey.key.id))?.last_used_at).toBe(T0 + 60_000);
  });

  it.each([
    ['nothing', undefined],
    ['an empty string', ''],
    ['a malformed key', 'sk_live_short'],
    ['an unknown key of the right shape', `sk_live_${'a'.repeat(40)}`],
    ['an unknown token of the right shape', `tok_${'a'.repeat(40)}`],
  ])('returns null for %s', async (_, presented) => {
    const { deps } = await setup();
    expect(await authenticate(deps, presented)).toBeNull();
  });

  it('refuses a key whose secret was changed to claim the other environment', async () => {
    const { deps, liveKey } = await setup();
    expect(await authenticate(deps, liveKey.secret.replace('sk_live_', 'sk_test_'))).toBeNull();
  });

  it('refuses the keys and tokens of a disabled account, and accepts them again when re-enabled', async () => {
    const { deps, store, account, liveKey } = await setup();
    const auth = (await authenticate(deps, liveKey.secret)) as NonNullable<
      Awaited<ReturnType<typeof authenticate>>
    >;
    const { secret: token } = await mintToken(deps, auth);
    await setAccountDisabled(store, { accountId: account.id, disabled: true, now: T0 });
    expect(await authenticate(deps, liveKey.secret)).toBeNull();
    expect(await authenticate(deps, token)).toBeNull();
    await setAccountDisabled(store, { accountId: account.id, disabled: false });
    expect(await authenticate(deps, token)).not.toBeNull();
  });

  it('reads plans through a short cache: syncPlans shows at once, a change behind its back within PLAN_CACHE_MS', async () => {
    const { deps, clock, store, liveKey } = await setup();
    expect((await authenticate(deps, liveKey.secret))?.plan.burst).toBe(100);
    await syncPlans(store, { pro: { ...DEFAULT_PLANS.pro, burst: 150 } as Plan });
    expect((await authenticate(deps, liveKey.secret))?.plan.burst).toBe(150);
    await store.upsertPlan({ ...DEFAULT_PLANS.pro, burst: 200 } as Plan);
    expect((await authenticate(deps, liveKey.secret))?.plan.burst).toBe(150);
    clock.now = T0 + PLAN_CACHE_MS;
    expect((await authenticate(deps, liveKey.secret))?.plan.burst).toBe(200);
  });

  it('fails loudly (not a 401) when the account’s plan is no longer configured', async () => {
    const { deps, store, account, liveKey } = await setup();
    await store.updateAccount(account.id, { plan_id: 'removed' });
    await expect(authenticate(deps, liveKey.secret)).rejects.toThrow(
      /plan "removed", which is not configured/,
    );
  });
});

describe('keys', () => {
  it('creates a key whose secret authenticates; another account cannot see or touch it', async () => {
    const { deps, store, account } = await setup();
    const issued = await createKey(store, {
      accountId: account.id,
      environment: 'live',
      name: 'ci',
      now: T0,
    });
    expect(issued.key).toMatchObject({ name: 'ci', environment: 'live', rotated_from: null });
    expect((await authenticate(deps, issued.secret))?.key.id).toBe(issued.key.id);
    const other = await createAccount(deps, { name: 'Other', planId: 'free' });
    expect(
      (await rejection(revokeKey(store, { accountId: other.account.id, keyId: issued.key.id }))).code,
    ).toBe('not_found');
    expect(
      (
        await rejection(
          rotateKey(store, { accountId: other.account.id, keyId: issued.key.id, graceSeconds: 0 }),
        )
      ).code,
    ).toBe('not_found');
    expect((await authenticate(deps, issued.secret))?.key.revoked_at).toBeNull();
    const env = await rejection(
      createKey(store, { accountId: account.id, environment: 'prod' as 'live', name: null }),
    );
    expect(env.message).toBe('environment must be "live" or "test", got "prod"');
    expect((await rejection(createKey(store, { accountId: 'acct_nope', environment: 'test' }))).code).toBe(
      'not_found',
    );
  });

  it('rotates: the new key works now, the old one until the grace period ends, then fails', async () => {
    const { deps, clock, store, account, liveKey } = await setup();
    const rotated = await rotateKey(store, {
      accountId: account.id,
      keyId: liveKey.key.id,
      graceSeconds: 600,
      now: T0,
    });
    expect(rotated.key).toMatchObject({ environment: 'live', name: 'default', rotated_from: liveKey.key.id });
    expect(rotated.previous.expires_at).toBe(T0 + 600_000);
    expect(await authenticate(deps, rotated.secret)).not.toBeNull();
    clock.now = T0 + 599_999;
    expect(await authenticate(deps, liveKey.secret)).not.toBeNull();
    clock.now = T0 + 600_000;
    expect(await authenticate(deps, liveKey.secret)).toBeNull();
    expect(await authenticate(deps, rotated.secret)).not.toBeNull();
    // The expired key cannot be rotated again.
    const again = await rejection(
      rotateKey(store, { accountId: account.id, keyId: liveKey.key.id, graceSeconds: 0 }),
    );
    expect(again.message).toMatch(/is expired; create a new key instead/);
  });

  it('rotating a key twice never lengthens the first grace period; grace 0 ends the old key at once', async () => {
    const { deps, store, account, testKey } = await setup();
    await rotateKey(store, { accountId: account.id, keyId: testKey.key.id, graceSeconds: 60, now: T0 });
    const second = await rotateKey(store, {
      accountId: account.id,
      keyId: testKey.key.id,
      graceSeconds: 3600,
      now: T0 + 1,
    });
    expect(second.previous.expires_at).toBe(T0 + 60_000);
    const third = await rotateKey(store, {
      accountId: account.id,
      keyId: second.key.id,
      graceSeconds: 0,
      now: T0,
    });
    expect(third.previous.expires_at).toBe(T0);
    expect(await authenticate(deps, second.secret)).toBeNull();
  });

  it.each([[-1], [1.5], [MAX_GRACE_SECONDS + 1]])('refuses grace_seconds %s', async (grace) => {
    const { store, account, liveKey } = await setup();
    const error = await rejection(
      rotateKey(store, { accountId: account.id, keyId: liveKey.key.id, graceSeconds: grace }),
    );
    expect([error.code, error.message]).toEqual([
      'invalid_request',
      `grace_seconds must be a whole number of seconds from 0 to ${MAX_GRACE_SECONDS} (30 days)`,
    ]);
  });

  it('revokes a key and every token it minted, and says so again without changing the time', async () => {
    const { deps, clock, store, account, liveKey, testKey } = await setup();
    const auth = (await authenticate(deps, liveKey.secret)) as NonNullable<
      Awaited<ReturnType<typeof authenticate>>
    >;
    const { secret: token } = await mintToken(deps, auth);
    const testAuth = (await authenticate(deps, testKey.secret)) as NonNullable<
      Awaited<ReturnType<typeof authenticate>>
    >;
    const { secret: otherToken } = await mintToken(deps, testAuth);
    clock.now = T0 + 5;
    const revoked = await revokeKey(store, { accountId: account.id, keyId: liveKey.key.id, now: T0 + 5 });
    expect(revoked.key.revoked_at).toBe(T0 + 5);
    expect(revoked.alsoRevoked).toEqual([]);
    expect(await authenticate(deps, liveKey.secret)).toBeNull();
    expect(await authenticate(deps, token)).toBeNull();
    // The other key's token is untouched.
    expect(await authenticate(deps, otherToken)).not.toBeNull();
    expect(
      (await revokeKey(store, { accountId: account.id, keyId: liveKey.key.id, now: T0 + 99 })).key.revoked_at,
    ).toBe(T0 + 5);
  });
});

describe('tokens', () => {
  it('mints a token on the key’s account and environment that authenticates until its ttl ends', async () => {
    const { deps, clock, testKey } = await setup();
    const auth = (await authenticate(deps, testKey.secret)) as NonNullable<
      Awaited<ReturnType<typeof authenticate>>
    >;
    const { token, secret } = await mintToken(deps, auth, {
      ttlSeconds: 120,
      scopes: ['geo_ip', 'geo_ip', 'verify_email'],
    });
    expect(secret).toMatch(/^tok_[0-9a-z]{40}$/);
    expect(token).toMatchObject({
      environment: 'test',
      key_id: testKey.key.id,
      scopes: ['geo_ip', 'verify_email'],
    });
    expect(token.expires_at).toBe(T0 + 120_000);
    const viaToken = await authenticate(deps, secret);
    expect(viaToken).toMatchObject({ environment: 'test', token: { id: token.id } });
    expect(viaToken?.key.id).toBe(testKey.key.id);
    // A token cannot mint another.
    const nested = await rejection(mintToken(deps, viaToken as NonNullable<typeof viaToken>));
    expect([nested.code, nested.message]).toEqual([
      'invalid_api_key',
      'a token cannot mint tokens; use an API key',
    ]);
    clock.now = T0 + 120_000;
    expect(await authenticate(deps, secret)).toBeNull();
  });

  it('defaults to one hour and never outlives a key in its rotation grace period', async () => {
    const { deps, store, account, liveKey } = await setup();
    const auth = (await authenticate(deps, liveKey.secret)) as NonNullable<
      Awaited<ReturnType<typeof authenticate>>
    >;
    expect((await mintToken(deps, auth)).token.expires_at).toBe(T0 + 3_600_000);
    await rotateKey(store, { accountId: account.id, keyId: liveKey.key.id, graceSeconds: 300, now: T0 });
    const during = (await authenticate(deps, liveKey.secret)) as NonNullable<
      Awaited<ReturnType<typeof authenticate>>
    >;
    expect((await mintToken(deps, during, { ttlSeconds: 86_400 })).token.expires_at).toBe(T0 + 300_000);
  });

  it.each([
    [{ ttlSeconds: 86_401 }, 'ttl_seconds must be a whole number from 60 to 86400 (24 hours)'],
    [{ ttlSeconds: 59 }, 'ttl_seconds must be a whole number from 60 to 86400 (24 hours)'],
    [{ scopes: [] }, 'scopes must list at least one endpoint, or be left out for all of them'],
    [
      { scopes: ['geo_ip', 'keys_create'], ttlSeconds: 7_200 },
      'ttl_seconds must be at most 3600 (1 hour) for a token with keys_create in its scopes',
    ],
    [{ scopes: ['tokens_create'] }, /^scopes\[0\]: "tokens_create"/],
    [{ scopes: ['nope'] }, /^scopes\[0\]: "nope"/],
  ])('refuses %j', async (input, message) => {
    const { deps, liveKey } = await setup();
    const auth = (await authenticate(deps, liveKey.secret)) as NonNullable<
      Awaited<ReturnType<typeof authenticate>>
    >;
    const error = await rejection(mintToken(deps, auth, input));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toMatch(message);
  });

  it('offers only endpoints any credential may call as scopes', () => {
    expect(TOKEN_SCOPES).toContain('verify_email');
    expect(TOKEN_SCOPES).not.toContain('tokens_create');
    expect(TOKEN_SCOPES).not.toContain('keys_rotate');
    expect(TOKEN_SCOPES).not.toContain('health');
    // Management is granted only by name (never by default), from a live key.
    expect(MANAGEMENT_SCOPES).toEqual([
      'keys_list',
      'keys_create',
      'keys_rotate',
      'keys_revoke',
      'webhook_secret_rotate',
      'feedback_provider_put',
      'feedback_provider_delete',
    ]);
  });
});

describe('webhook secrets and plans', () => {
  it('rotates the webhook secret: both sign during the grace period, newest first, then only the new one', async () => {
    const { deps, account, webhookSecret } = await setup();
    const rotated = await rotateWebhookSecret(deps, {
      accountId: account.id,
      graceSeconds: 3600,
      now: T0 + 10,
    });
    expect(rotated.previousExpiresAt).toBe(T0 + 10 + 3_600_000);
    expect(rotated.record.prefix).toBe(rotated.secret.slice(0, 10));
    expect(await webhookSigningSecrets(deps, account.id, T0 + 20)).toEqual([
      rotated.secret,
      webhookSecret.secret,
    ]);
    expect(await webhookSigningSecrets(deps, account.id, T0 + 10 + 3_600_000)).toEqual([rotated.secret]);
    expect(
      (await rejection(rotateWebhookSecret(deps, { accountId: 'acct_nope', graceSeconds: 0 }))).code,
    ).toBe('not_found');
  });

  it('a sealed secret moved to another account does not unseal there', async () => {
    const { deps, store, account } = await setup();
    const other = await createAccount(deps, { name: 'Other', planId: 'free' });
    const [mine] = await store.activeWebhookSecrets(account.id, T0);
    await store.addWebhookSecret({
      ...(mine as NonNullable<typeof mine>),
      id: 'wsec_copied',
      account_id: other.account.id,
      created_at: T0 + 1,
    });
    await expect(webhookSigningSecrets(deps, other.account.id, T0 + 2)).rejects.toThrow(/cannot unseal/);
  });

  it('moves an account to another configured plan, which authentication then reports', async () => {
    const { deps, store, account, liveKey } = await setup();
    expect((await setAccountPlan(store, { accountId: account.id, planId: 'free' })).plan_id).toBe('free');
    expect((await authenticate(deps, liveKey.secret))?.plan).toEqual(DEFAULT_PLANS.free);
    expect((await rejection(setAccountPlan(store, { accountId: account.id, planId: 'gold' }))).code).toBe(
      'invalid_request',
    );
    expect((await rejection(setAccountPlan(store, { accountId: 'acct_nope', planId: 'free' }))).code).toBe(
      'not_found',
    );
  });
});
