import { createId } from '@svc/core';
import { describe, expect, it } from 'vitest';
import type {
  Account,
  ApiKey,
  ControlPlaneStore,
  Plan,
  Token,
  WebhookSecret,
} from '../control-plane/store.js';
import { DEFAULT_PLANS } from '../options.js';

/** Makes a fresh, empty store; `reopen` (when given) opens a second store on the same data. */
export interface ControlPlaneStoreFactory {
  create(): Promise<ControlPlaneStore>;
  reopen?: (store: ControlPlaneStore) => Promise<ControlPlaneStore>;
}

const T0 = Date.parse('2026-11-23T10:00:00Z');
let counter = 0;
const unique = () => String(++counter).padStart(6, '0');

/** The default Pro plan, changed by `overrides`. */
const plan = (overrides: Partial<Plan> = {}): Plan => ({ ...(DEFAULT_PLANS.pro as Plan), ...overrides });
const account = (overrides: Partial<Account> = {}): Account => ({
  id: createId('acct', T0),
  name: `Account ${unique()}`,
  plan_id: 'pro',
  created_at: T0,
  disabled_at: null,
  ...overrides,
});
const key = (accountId: string, overrides: Partial<ApiKey> = {}): ApiKey => ({
  id: createId('key', T0),
  account_id: accountId,
  environment: 'live',
  name: null,
  hash: `${unique()}`.padStart(64, 'a'),
  last4: 'wxyz',
  created_at: T0,
  last_used_at: null,
  expires_at: null,
  revoked_at: null,
  rotated_from: null,
  created_by: null,
  ...overrides,
});
const token = (accountId: string, keyId: string, overrides: Partial<Token> = {}): Token => ({
  id: createId('tok', T0),
  account_id: accountId,
  key_id: keyId,
  environment: 'live',
  hash: `${unique()}`.padStart(64, 'b'),
  scopes: null,
  created_at: T0,
  expires_at: T0 + 3_600_000,
  ...overrides,
});
const secret = (accountId: string, overrides: Partial<WebhookSecret> = {}): WebhookSecret => ({
  id: createId('wsec', T0),
  account_id: accountId,
  sealed: `v1.sealed-${unique()}`,
  prefix: 'whsec_abcd',
  created_at: T0,
  expires_at: null,
  ...overrides,
});

/** The conformance suite every ControlPlaneStore passes (memory, SQLite, and later Postgres). */
export function describeControlPlaneStore(name: string, factory: ControlPlaneStoreFactory): void {
  describe(`ControlPlaneStore conformance: ${name}`, () => {
    it('upserts plans, replacing every field, and lists them by id', async () => {
      const store = await factory.create();
      expect(await store.getPlan('pro')).toBeNull();
      await store.upsertPlan(plan({ id: 'pro' }));
      await store.upsertPlan(plan({ id: 'free', name: 'Free', monthly_allowance: 1_000 }));
      await store.upsertPlan(
        plan({ id: 'pro', rate_per_second: 30, monthly_allowance: null, endpoints: ['geo_ip', 'geo_me'] }),
      );
      expect(await store.getPlan('pro')).toEqual(
        plan({ id: 'pro', rate_per_second: 30, monthly_allowance: null, endpoints: ['geo_ip', 'geo_me'] }),
      );
      expect((await store.listPlans()).map((p) => p.id)).toEqual(['free', 'pro']);

      // Billing company misses round-trips both ways.
      await store.upsertPlan(plan({ id: 'free', name: 'Free', bill_company_misses: true }));
      expect(await store.getPlan('free')).toEqual(
        plan({ id: 'free', name: 'Free', bill_company_misses: true }),
      );
      expect((await store.listPlans()).map((p) => p.bill_company_misses)).toEqual([true, false]);
      await store.upsertPlan(plan({ id: 'free', name: 'Free', bill_company_misses: false }));
      expect((await store.getPlan('free'))?.bill_company_misses).toBe(false);
      await store.close();
    });

    it('creates, finds, lists and updates accounts; a duplicate id is refused', async () => {
      const store = await factory.create();
      const first = account({ created_at: T0 + 1 });
      const second = account({ created_at: T0 });
      await store.createAccount(first);
      await store.createAccount(second);
      await expect(store.createAccount(first)).rejects.toThrow();
      expect(await store.getAccount(first.id)).toEqual(first);
      expect(await store.getAccount('acct_nope')).toBeNull();
      expect((await store.listAccounts()).map((a) => a.id)).toEqual([second.id, first.id]);

      const updated = await store.updateAccount(first.id, { plan_id: 'free', disabled_at: T0 + 5 });
      expect(updated).toEqual({ ...first, plan_id: 'free', disabled_at: T0 + 5 });
      expect(await store.getAccount(first.id)).toEqual(updated);
      // Fields left out of the patch are kept; null re-enables.
      expect(await store.updateAccount(first.id, { disabled_at: null })).toEqual({
        ...first,
        plan_id: 'free',
      });
      expect(await store.updateAccount('acct_nope', { name: 'x' })).toBeNull();
      await store.close();
    });

    it('creates a first account only in a store with none, once among calls made at once', async () => {
      const store = await factory.create();
      const contenders = Array.from({ length: 5 }, () => account());
      const created = await Promise.all(contenders.map((a) => store.createFirstAccount(a)));
      expect(created.filter(Boolean)).toHaveLength(1);
      const winner = contenders[created.indexOf(true)] as Account;
      expect(await store.listAccounts()).toEqual([winner]);
      // An ordinary account still makes the store not empty.
      const other = await factory.create();
      await other.createAccount(account());
      expect(await other.createFirstAccount(account())).toBe(false);
      expect(await other.listAccounts()).toHaveLength(1);
      await other.close();
      await store.close();
    });

    it('hands out copies: changing a returned record does not change the store', async () => {
      const store = await factory.create();
      const a = account();
      await store.createAccount(a);
      a.name = 'changed by the caller after create';
      const read = (await store.getAccount(a.id)) as Account;
      expect(read.name).not.toBe(a.name);
      read.plan_id = 'changed by the caller after get';
      expect((await store.getAccount(a.id))?.plan_id).toBe('pro');
      await store.close();
    });

    it('finds keys by hash, and by id only within their account', async () => {
      const store = await factory.create();
      const a = account();
      const b = account();
      await store.createAccount(a);
      await store.createAccount(b);
      const live = key(a.id, { name: 'production', created_at: T0 + 1 });
      const test = key(a.id, { environment: 'test', created_at: T0 });
      await store.createKey(live);
      await store.createKey(test);
      expect(await store.findKeyByHash(live.hash)).toEqual(live);
      expect(await store.findKeyByHash('f'.repeat(64))).toBeNull();
      expect(await store.getKey(a.id, test.id)).toEqual(test);
      // Account B cannot read, list or change account A's key by its id.
      expect(await store.getKey(b.id, live.id)).toBeNull();
      expect(await store.listKeys(b.id)).toEqual([]);
      expect(await store.updateKey(b.id, live.id, { revoked_at: T0 })).toBeNull();
      expect((await store.listKeys(a.id)).map((k) => k.id)).toEqual([test.id, live.id]);
      await store.close();
    });

    it('refuses a second key with the same id or the same hash', async () => {
      const store = await factory.create();
      const a = account();
      await store.createAccount(a);
      const first = key(a.id);
      await store.createKey(first);
      await expect(store.createKey(key(a.id, { id: first.id }))).rejects.toThrow();
      await expect(store.createKey(key(a.id, { hash: first.hash }))).rejects.toThrow();
      expect(await store.listKeys(a.id)).toHaveLength(1);
      await store.close();
    });

    it('updates a key’s expiry, revocation and name, and records its last use', async () => {
      const store = await factory.create();
      const a = account();
      await store.createAccount(a);
      const k = key(a.id, { rotated_from: 'key_previous', created_by: 'key_maker' });
      await store.createKey(k);
      expect(await store.updateKey(a.id, k.id, { expires_at: T0 + 60_000 })).toEqual({
        ...k,
        expires_at: T0 + 60_000,
      });
      expect(await store.updateKey(a.id, k.id, { revoked_at: T0 + 10, name: 'old' })).toEqual({
        ...k,
        expires_at: T0 + 60_000,
        revoked_at: T0 + 10,
        name: 'old',
      });
      await store.touchKey(k.id, T0 + 99);
      expect((await store.findKeyByHash(k.hash))?.last_used_at).toBe(T0 + 99);
      await store.touchKey('key_nope', T0); // a key deleted meanwhile is no error
      await store.close();
    });

    it('stores tokens with their scopes, finds them by hash, and deletes the expired ones', async () => {
      const store = await factory.create();
      const a = account();
      await store.createAccount(a);
      const k = key(a.id);
      await store.createKey(k);
      const scoped = token(a.id, k.id, { scopes: ['geo_ip', 'verify_email'], expires_at: T0 + 1_000 });
      const open = token(a.id, k.id, { environment: 'live', expires_at: T0 + 5_000 });
      await store.createToken(scoped);
      await store.createToken(open);
      await expect(store.createToken(token(a.id, k.id, { hash: scoped.hash }))).rejects.toThrow();
      expect(await store.findTokenByHash(scoped.hash)).toEqual(scoped);
      expect(await store.findTokenByHash(open.hash)).toEqual(open);
      expect(await store.findTokenByHash('c'.repeat(64))).toBeNull();

      expect(await store.deleteExpiredTokens(T0 + 999)).toBe(0);
      // A token whose expiry is now is expired: it is valid only before expires_at.
      expect(await store.deleteExpiredTokens(T0 + 1_000)).toBe(1);
      expect(await store.findTokenByHash(scoped.hash)).toBeNull();
      expect(await store.findTokenByHash(open.hash)).toEqual(open);
      await store.close();
    });

    it('keeps webhook secrets sealed as given, newest first, and expires all but the kept one on rotation', async () => {
      const store = await factory.create();
      const a = account();
      const b = account();
      await store.createAccount(a);
      await store.createAccount(b);
      const first = secret(a.id, { created_at: T0 });
      const other = secret(b.id, { created_at: T0 });
      await store.addWebhookSecret(first);
      await store.addWebhookSecret(other);
      expect(await store.activeWebhookSecrets(a.id, T0)).toEqual([first]);

      const second = secret(a.id, { created_at: T0 + 10 });
      await store.addWebhookSecret(second);
      await store.expireWebhookSecrets(a.id, second.id, T0 + 1_000);
      // During the grace period both sign, newest first.
      expect(await store.activeWebhookSecrets(a.id, T0 + 999)).toEqual([
        second,
        { ...first, expires_at: T0 + 1_000 },
      ]);
      expect(await store.activeWebhookSecrets(a.id, T0 + 1_000)).toEqual([second]);
      // Another account's secret is untouched.
      expect(await store.activeWebhookSecrets(b.id, T0 + 5_000)).toEqual([other]);

      // A second rotation within the grace period never lengthens the first secret's life.
      const third = secret(a.id, { created_at: T0 + 20 });
      await store.addWebhookSecret(third);
      await store.expireWebhookSecrets(a.id, third.id, T0 + 2_000);
      expect((await store.activeWebhookSecrets(a.id, T0 + 500)).map((s) => [s.id, s.expires_at])).toEqual([
        [third.id, null],
        [second.id, T0 + 2_000],
        [first.id, T0 + 1_000],
      ]);
      await store.close();
    });

    it('records usage per account, endpoint and month, returning the month’s units after each call', async () => {
      const store = await factory.create();
      const a = account();
      const b = account();
      expect(await store.recordUsage(a.id, 'verify_email', '2026-11', 1)).toBe(1);
      expect(await store.recordUsage(a.id, 'verify_email', '2026-11', 1)).toBe(2);
      expect(await store.recordUsage(a.id, 'verify_email_bulk', '2026-11', 250)).toBe(252);
      expect(await store.recordUsage(a.id, 'geo_ip', '2026-12', 1)).toBe(1);
      expect(await store.recordUsage(b.id, 'geo_ip', '2026-11', 7)).toBe(7);

      expect(await store.usedUnits(a.id, '2026-11')).toBe(252);
      expect(await store.usedUnits(a.id, '2026-10')).toBe(0);
      expect(await store.usage(a.id, '2026-11')).toEqual([
        { endpoint: 'verify_email', calls: 2, units: 2 },
        { endpoint: 'verify_email_bulk', calls: 1, units: 250 },
      ]);
      expect(await store.usage(b.id, '2026-11')).toEqual([{ endpoint: 'geo_ip', calls: 1, units: 7 }]);
      expect(await store.usage(b.id, '2026-12')).toEqual([]);
      await store.close();
    });

    it('counts usage per day when a day is given, within the month, by day then endpoint', async () => {
      const store = await factory.create();
      const a = account();
      const b = account();
      expect(await store.recordUsage(a.id, 'geo_ip', '2026-11', 1, '2026-11-02')).toBe(1);
      expect(await store.recordUsage(a.id, 'verify_email_bulk', '2026-11', 40, '2026-11-02')).toBe(41);
      expect(await store.recordUsage(a.id, 'geo_ip', '2026-11', 1, '2026-11-02')).toBe(42);
      expect(await store.recordUsage(a.id, 'geo_ip', '2026-11', 1, '2026-11-30')).toBe(43);
      // Without a day the call counts for the month only.
      expect(await store.recordUsage(a.id, 'geo_ip', '2026-11', 1)).toBe(44);
      await store.recordUsage(a.id, 'geo_ip', '2026-12', 5, '2026-12-01');
      await store.recordUsage(b.id, 'geo_ip', '2026-11', 9, '2026-11-02');
      expect(await store.usageByDay(a.id, '2026-11')).toEqual([
        { day: '2026-11-02', endpoint: 'geo_ip', calls: 2, units: 2 },
        { day: '2026-11-02', endpoint: 'verify_email_bulk', calls: 1, units: 40 },
        { day: '2026-11-30', endpoint: 'geo_ip', calls: 1, units: 1 },
      ]);
      expect(await store.usageByDay(a.id, '2026-12')).toEqual([
        { day: '2026-12-01', endpoint: 'geo_ip', calls: 1, units: 5 },
      ]);
      expect(await store.usageByDay(a.id, '2026-10')).toEqual([]);
      expect(await store.usage(a.id, '2026-11')).toEqual([
        { endpoint: 'geo_ip', calls: 4, units: 4 },
        { endpoint: 'verify_email_bulk', calls: 1, units: 40 },
      ]);
      await expect(store.recordUsage(a.id, 'geo_ip', '2026-11', 1, '2026-12-01')).rejects.toThrow(
        /day must be YYYY-MM-DD within 2026-11/,
      );
      await expect(store.recordUsage(a.id, 'geo_ip', '2026-11', 1, '2026-11-32')).rejects.toThrow(TypeError);
      await expect(store.usageByDay(a.id, 'November')).rejects.toThrow(TypeError);
      expect(await store.usedUnits(a.id, '2026-11')).toBe(44);
      await store.close();
    });

    it('loses no usage when many calls record at once', async () => {
      const store = await factory.create();
      const a = account();
      const totals = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          store.recordUsage(a.id, i % 2 ? 'geo_ip' : 'verify_email', '2026-11', 1),
        ),
      );
      // Every call saw a different running total: the read-after-add is atomic.
      expect(new Set(totals).size).toBe(200);
      expect(Math.max(...totals)).toBe(200);
      expect(await store.usage(a.id, '2026-11')).toEqual([
        { endpoint: 'geo_ip', calls: 100, units: 100 },
        { endpoint: 'verify_email', calls: 100, units: 100 },
      ]);
      await store.close();
    });

    it('adds many lines of usage at once, returning each line’s month total after all of them', async () => {
      const store = await factory.create();
      const a = account();
      const b = account();
      await store.recordUsage(a.id, 'geo_ip', '2026-11', 1, '2026-11-02');
      expect(
        await store.addUsage([
          { accountId: a.id, endpoint: 'geo_ip', month: '2026-11', day: '2026-11-02', calls: 3, units: 3 },
          { accountId: b.id, endpoint: 'geo_ip', month: '2026-11', calls: 2, units: 2 },
          {
            accountId: a.id,
            endpoint: 'verify_email_bulk',
            month: '2026-11',
            day: '2026-11-03',
            calls: 2,
            units: 80,
          },
          { accountId: a.id, endpoint: 'geo_ip', month: '2026-12', calls: 1, units: 1 },
        ]),
      ).toEqual([84, 2, 84, 1]);
      expect(await store.usage(a.id, '2026-11')).toEqual([
        { endpoint: 'geo_ip', calls: 4, units: 4 },
        { endpoint: 'verify_email_bulk', calls: 2, units: 80 },
      ]);
      expect(await store.usageByDay(a.id, '2026-11')).toEqual([
        { day: '2026-11-02', endpoint: 'geo_ip', calls: 4, units: 4 },
        { day: '2026-11-03', endpoint: 'verify_email_bulk', calls: 2, units: 80 },
      ]);
      // A single call after the batch continues from its total.
      expect(await store.recordUsage(a.id, 'geo_ip', '2026-11', 1)).toBe(85);
      expect(await store.addUsage([])).toEqual([]);

      // One bad line refuses the whole batch before anything is added.
      await expect(
        store.addUsage([
          { accountId: b.id, endpoint: 'geo_ip', month: '2026-11', calls: 5, units: 5 },
          { accountId: b.id, endpoint: 'geo_ip', month: '2026-11', calls: 0, units: 5 },
        ]),
      ).rejects.toThrow(/calls must be a positive integer/);
      await expect(
        store.addUsage([
          { accountId: b.id, endpoint: 'geo_ip', month: '2026-11', day: '2026-12-01', calls: 1, units: 1 },
        ]),
      ).rejects.toThrow(TypeError);
      expect(await store.usedUnits(b.id, '2026-11')).toBe(2);
      await store.close();
    });

    it('credits billed units once per key, on the month and the day, before or after the billing', async () => {
      const store = await factory.create();
      const a = account();
      const b = account();
      await store.recordUsage(a.id, 'batch_create', '2026-11', 10, '2026-11-02');
      await store.recordUsage(a.id, 'geo_ip', '2026-11', 1, '2026-11-02');
      const credit = {
        accountId: a.id,
        key: 'batch_1',
        endpoint: 'batch_create',
        month: '2026-11',
        day: '2026-11-02',
        units: 3,
      };
      expect(await store.creditUsage(credit)).toBe(true);
      // The same key again (a retried credit) changes nothing.
      expect(await store.creditUsage(credit)).toBe(false);
      expect(await store.usedUnits(a.id, '2026-11')).toBe(8);
      expect(await store.usage(a.id, '2026-11')).toEqual([
        { endpoint: 'batch_create', calls: 1, units: 7 },
        { endpoint: 'geo_ip', calls: 1, units: 1 },
      ]);
      expect(await store.usageByDay(a.id, '2026-11')).toEqual([
        { day: '2026-11-02', endpoint: 'batch_create', calls: 1, units: 7 },
        { day: '2026-11-02', endpoint: 'geo_ip', calls: 1, units: 1 },
      ]);
      expect(await store.recordUsage(a.id, 'batch_create', '2026-11', 2)).toBe(10);

      // Keys are per account. A credit that lands before its billing (a job that ended before the
      // submit's usage was recorded) nets out when the billing comes.
      expect(await store.creditUsage({ ...credit, accountId: b.id })).toBe(true);
      expect(await store.usedUnits(b.id, '2026-11')).toBe(-3);
      expect(await store.recordUsage(b.id, 'batch_create', '2026-11', 10, '2026-11-02')).toBe(7);
      expect(await store.usage(b.id, '2026-11')).toEqual([{ endpoint: 'batch_create', calls: 1, units: 7 }]);
      expect(await store.usageByDay(b.id, '2026-11')).toEqual([
        { day: '2026-11-02', endpoint: 'batch_create', calls: 1, units: 7 },
      ]);

      await expect(store.creditUsage({ ...credit, key: 'batch_3', units: 0 })).rejects.toThrow(TypeError);
      await expect(store.creditUsage({ ...credit, key: '' })).rejects.toThrow(/key/);
      await expect(store.creditUsage({ ...credit, key: 'batch_4', day: '2026-12-01' })).rejects.toThrow(
        TypeError,
      );
      expect(await store.usedUnits(a.id, '2026-11')).toBe(10);
      await store.close();
    });

    it('refuses a malformed month or units with a TypeError', async () => {
      const store = await factory.create();
      await expect(store.recordUsage('acct_x', 'geo_ip', '2026-13', 1)).rejects.toThrow(
        /month must be YYYY-MM/,
      );
      await expect(store.recordUsage('acct_x', 'geo_ip', '2026-1', 1)).rejects.toThrow(TypeError);
      await expect(store.recordUsage('acct_x', 'geo_ip', '2026-11', 0)).rejects.toThrow(
        /units must be a positive integer/,
      );
      await expect(store.recordUsage('acct_x', 'geo_ip', '2026-11', 1.5)).rejects.toThrow(TypeError);
      await expect(store.usage('acct_x', 'November')).rejects.toThrow(TypeError);
      expect(await store.usedUnits('acct_x', '2026-11')).toBe(0);
      await store.close();
    });

    if (factory.reopen) {
      const reopen = factory.reopen;
      it('keeps everything for a second store opened on the same data', async () => {
        const store = await factory.create();
        const a = account();
        await store.upsertPlan(plan());
        await store.createAccount(a);
        const k = key(a.id);
        await store.createKey(k);
        const t = token(a.id, k.id, { scopes: ['geo_ip'] });
        await store.createToken(t);
        const s = secret(a.id);
        await store.addWebhookSecret(s);
        await store.recordUsage(a.id, 'geo_ip', '2026-11', 3);

        const again = await reopen(store);
        expect(await again.getPlan('pro')).toEqual(plan());
        expect(await again.getAccount(a.id)).toEqual(a);
        expect(await again.findKeyByHash(k.hash)).toEqual(k);
        expect(await again.findTokenByHash(t.hash)).toEqual(t);
        expect(await again.activeWebhookSecrets(a.id, T0)).toEqual([s]);
        // Usage recorded through one handle is counted by the other (two processes, one file).
        expect(await again.recordUsage(a.id, 'geo_ip', '2026-11', 2)).toBe(5);
        expect(await store.usedUnits(a.id, '2026-11')).toBe(5);
        await again.close();
        await store.close();
      });

      it('makes one first account when two stores on the same empty data try at once', async () => {
        const store = await factory.create();
        const again = await reopen(store);
        const [a, b] = [account(), account()];
        const created = await Promise.all([store.createFirstAccount(a), again.createFirstAccount(b)]);
        expect(created.filter(Boolean)).toHaveLength(1);
        expect(await again.listAccounts()).toEqual([created[0] ? a : b]);
        await again.close();
        await store.close();
      });
    }

    it('refuses to work after close', async () => {
      const store = await factory.create();
      await store.close();
      await expect(store.getPlan('pro')).rejects.toThrow();
    });
  });
}
