import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PLANS } from '../options.js';
import {
  type AccountDeps,
  authenticate,
  CREDENTIAL_CACHE_MAX,
  CREDENTIAL_CACHE_MS,
  cachedCredential,
  cachedCredentialCount,
  createAccount,
  createKey,
  mintToken,
  revokeKey,
  rotateKey,
  setAccountDisabled,
  setAccountPlan,
  syncPlans,
  TOUCH_INTERVAL_MS,
} from './accounts.js';
import { createServerSecrets } from './secrets.js';
import type { ControlPlaneStore } from './store.js';
import { createMemoryControlPlaneStore } from './stores/memory.js';

const T0 = Date.parse('2026-11-23T10:00:00Z');

/** A memory store that counts the reads `authenticate` makes. */
function countingStore(): { store: ControlPlaneStore; reads: { count: number } } {
  const inner = createMemoryControlPlaneStore();
  const reads = { count: 0 };
  const store: ControlPlaneStore = {
    ...inner,
    findKeyByHash: (hash) => {
      reads.count++;
      return inner.findKeyByHash(hash);
    },
    findTokenByHash: (hash) => {
      reads.count++;
      return inner.findTokenByHash(hash);
    },
    getAccount: (id) => {
      reads.count++;
      return inner.getAccount(id);
    },
  };
  return { store, reads };
}

async function setup() {
  const clock = { now: T0 };
  const { store, reads } = countingStore();
  const deps: AccountDeps = {
    controlPlane: store,
    secrets: createServerSecrets(randomBytes(32)),
    now: () => clock.now,
  };
  await syncPlans(store, DEFAULT_PLANS);
  const created = await createAccount(deps, { name: 'Acme', planId: 'pro' });
  return { deps, clock, store, reads, ...created };
}

/**
 * `authenticate`'s answer, after checking that `cachedCredential` (the auth plugin's synchronous
 * path) never contradicts it: it either leaves the question to `authenticate` or gives the same answer.
 */
async function authenticated(deps: AccountDeps, secret: string) {
  const quick = cachedCredential(deps, secret);
  const answer = await authenticate(deps, secret);
  if (quick !== undefined) expect(quick).toEqual(answer);
  return answer;
}

describe('authenticate: the credential cache', () => {
  it('reads the store once per credential within CREDENTIAL_CACHE_MS, then again', async () => {
    const { deps, clock, reads, liveKey } = await setup();
    await authenticated(deps, liveKey.secret);
    const first = reads.count;
    expect(first).toBeGreaterThan(0);
    clock.now = T0 + CREDENTIAL_CACHE_MS - 1;
    expect(await authenticated(deps, liveKey.secret)).not.toBeNull();
    expect(reads.count).toBe(first);
    clock.now = T0 + CREDENTIAL_CACHE_MS;
    expect(await authenticated(deps, liveKey.secret)).not.toBeNull();
    expect(reads.count).toBe(first * 2);
  });

  it('a revocation by another process applies within CREDENTIAL_CACHE_MS; one through revokeKey at once', async () => {
    const { deps, clock, store, account, liveKey, testKey } = await setup();
    expect(await authenticated(deps, liveKey.secret)).not.toBeNull();
    expect(await authenticated(deps, testKey.secret)).not.toBeNull();
    // Behind the cache's back, as `svc keys revoke` in another process would.
    await store.updateKey(account.id, testKey.key.id, { revoked_at: T0 + 1 });
    clock.now = T0 + 1;
    expect(await authenticated(deps, testKey.secret)).not.toBeNull();
    clock.now = T0 + CREDENTIAL_CACHE_MS;
    expect(await authenticated(deps, testKey.secret)).toBeNull();
    // Through this process: the very next request fails, though the entry was fresh.
    expect(await authenticated(deps, liveKey.secret)).not.toBeNull();
    await revokeKey(store, { accountId: account.id, keyId: liveKey.key.id, now: clock.now });
    expect(await authenticated(deps, liveKey.secret)).toBeNull();
  });

  it('checks expiry against the clock on every request, cached or not (key and token)', async () => {
    const { deps, clock, store, account, liveKey } = await setup();
    const auth = await authenticated(deps, liveKey.secret);
    const { secret: token } = await mintToken(deps, auth as NonNullable<typeof auth>, { ttlSeconds: 60 });
    clock.now = T0 + 59_999;
    expect(await authenticated(deps, token)).not.toBeNull();
    clock.now = T0 + 60_000;
    expect(await authenticated(deps, token)).toBeNull();
    // The old key of a rotation keeps working for its 1 s of grace, and not one ms more.
    await rotateKey(store, { accountId: account.id, keyId: liveKey.key.id, graceSeconds: 1, now: clock.now });
    expect(await authenticated(deps, liveKey.secret)).not.toBeNull();
    clock.now += 999;
    expect(await authenticated(deps, liveKey.secret)).not.toBeNull();
    clock.now += 1;
    expect(await authenticated(deps, liveKey.secret)).toBeNull();
  });

  it('a disable or a plan change through this process applies to the next request', async () => {
    const { deps, store, account, liveKey } = await setup();
    const auth = await authenticated(deps, liveKey.secret);
    const { secret: token } = await mintToken(deps, auth as NonNullable<typeof auth>);
    expect((await authenticated(deps, token))?.plan).toEqual(DEFAULT_PLANS.pro);
    await setAccountPlan(store, { accountId: account.id, planId: 'free' });
    expect((await authenticated(deps, liveKey.secret))?.plan).toEqual(DEFAULT_PLANS.free);
    expect((await authenticated(deps, token))?.plan).toEqual(DEFAULT_PLANS.free);
    await setAccountDisabled(store, { accountId: account.id, disabled: true, now: T0 });
    expect(await authenticated(deps, liveKey.secret)).toBeNull();
    expect(await authenticated(deps, token)).toBeNull();
  });

  it(`holds at most CREDENTIAL_CACHE_MAX (${CREDENTIAL_CACHE_MAX}) credentials, and never unknown ones`, async () => {
    const { deps, store, account } = await setup();
    expect(await authenticated(deps, `sk_live_${'a'.repeat(40)}`)).toBeNull();
    expect(cachedCredentialCount(store)).toBe(0);
    const secrets: string[] = [];
    for (let i = 0; i < CREDENTIAL_CACHE_MAX + 10; i++) {
      secrets.push((await createKey(store, { accountId: account.id, environment: 'live', now: T0 })).secret);
    }
    for (const secret of secrets) expect(await authenticated(deps, secret)).not.toBeNull();
    expect(cachedCredentialCount(store)).toBe(CREDENTIAL_CACHE_MAX);
  });
});

describe('cachedCredential: the answer without the store', () => {
  it('only for a credential authenticated moments ago, usable now, with its plan cached and no touch due', async () => {
    const { deps, clock, liveKey } = await setup();
    expect(cachedCredential(deps, liveKey.secret)).toBeUndefined();
    const auth = await authenticate(deps, liveKey.secret);
    expect(cachedCredential(deps, liveKey.secret)).toEqual(auth);
    expect(cachedCredential(deps, `sk_live_${'0'.repeat(40)}`)).toBeUndefined();
    // A token past its expiry by the clock is never answered here; authenticate refuses it.
    const { secret: token } = await mintToken(deps, auth as NonNullable<typeof auth>, { ttlSeconds: 60 });
    clock.now = T0 + 59_000;
    await authenticate(deps, token); // cached until T0 + 61 s, past the token's expiry
    clock.now = T0 + 59_999;
    expect(cachedCredential(deps, token)?.token?.expires_at).toBe(T0 + 60_000);
    clock.now = T0 + 60_000;
    expect(cachedCredential(deps, token)).toBeUndefined();
    expect(await authenticate(deps, token)).toBeNull();
  });

  it('leaves it to authenticate once the entry is old or the key is due a last_used_at touch', async () => {
    const { deps, clock, liveKey } = await setup();
    await authenticate(deps, liveKey.secret);
    clock.now = T0 + CREDENTIAL_CACHE_MS;
    expect(cachedCredential(deps, liveKey.secret)).toBeUndefined();
    await authenticate(deps, liveKey.secret);
    expect(cachedCredential(deps, liveKey.secret)).toBeDefined();
    clock.now = T0 + TOUCH_INTERVAL_MS;
    await authenticate(deps, liveKey.secret); // reads again (entry old) and touches
    expect(cachedCredential(deps, liveKey.secret)?.key.last_used_at).toBe(T0 + TOUCH_INTERVAL_MS);
  });
});
