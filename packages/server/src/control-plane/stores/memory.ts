import type {
  Account,
  ApiKey,
  ControlPlaneStore,
  DailyUsageLine,
  Plan,
  Token,
  UsageIncrement,
  UsageLine,
  WebhookSecret,
} from '../store.js';
import {
  assertCredit,
  assertDay,
  assertIncrements,
  assertMonth,
  assertUnits,
  byCreation,
  byDayThenEndpoint,
} from './checks.js';

/**
 * A ControlPlaneStore in process memory: for tests and for embedding the API in an app that keeps
 * its accounts elsewhere. Nothing survives a restart. Records go in and come out as copies, so a
 * caller changing an object it was given cannot change the store behind its back (the SQLite
 * store behaves the same way by construction).
 */
export function createMemoryControlPlaneStore(): ControlPlaneStore {
  const plans = new Map<string, Plan>();
  const accounts = new Map<string, Account>();
  const keys = new Map<string, ApiKey>();
  const keysByHash = new Map<string, string>();
  const tokens = new Map<string, Token>();
  const tokensByHash = new Map<string, string>();
  const secrets = new Map<string, WebhookSecret>();
  // account id → month → endpoint → line
  const usage = new Map<string, Map<string, Map<string, UsageLine>>>();
  // account id → `day endpoint` → line
  const daily = new Map<string, Map<string, DailyUsageLine>>();
  // account id → keys of the usage credits applied
  const credits = new Map<string, Set<string>>();
  let closed = false;

  const open = (): void => {
    if (closed) throw new Error('the control-plane store is closed');
  };
  const copy = <T>(value: T): T => structuredClone(value);

  // Adds checked usage to its month (and day); returns the month's units after it.
  const add = ({ accountId, endpoint, month, day, calls, units }: UsageIncrement): number => {
    if (day !== undefined) {
      const days = daily.get(accountId) ?? new Map<string, DailyUsageLine>();
      daily.set(accountId, days);
      const line = days.get(`${day} ${endpoint}`) ?? { day, endpoint, calls: 0, units: 0 };
      line.calls += calls;
      line.units += units;
      days.set(`${day} ${endpoint}`, line);
    }
    const months = usage.get(accountId) ?? new Map<string, Map<string, UsageLine>>();
    usage.set(accountId, months);
    const lines = months.get(month) ?? new Map<string, UsageLine>();
    months.set(month, lines);
    const line = lines.get(endpoint) ?? { endpoint, calls: 0, units: 0 };
    line.calls += calls;
    line.units += units;
    lines.set(endpoint, line);
    return sumUnits(lines);
  };

  return {
    async upsertPlan(plan) {
      open();
      plans.set(plan.id, copy(plan));
    },
    async getPlan(id) {
      open();
      const plan = plans.get(id);
      return plan ? copy(plan) : null;
    },
    async listPlans() {
      open();
      return [...plans.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map(copy);
    },

    async createAccount(account) {
      open();
      if (accounts.has(account.id)) throw new Error(`account ${account.id} already exists`);
      accounts.set(account.id, copy(account));
    },
    async createFirstAccount(account) {
      open();
      if (accounts.size > 0) return false;
      accounts.set(account.id, copy(account));
      return true;
    },
    async getAccount(id) {
      open();
      const account = accounts.get(id);
      return account ? copy(account) : null;
    },
    async listAccounts() {
      open();
      return [...accounts.values()].sort(byCreation).map(copy);
    },
    async updateAccount(id, patch) {
      open();
      const account = accounts.get(id);
      if (!account) return null;
      if (patch.name !== undefined) account.name = patch.name;
      if (patch.plan_id !== undefined) account.plan_id = patch.plan_id;
      if (patch.disabled_at !== undefined) account.disabled_at = patch.disabled_at;
      return copy(account);
    },

    async createKey(key) {
      open();
      if (keys.has(key.id)) throw new Error(`key ${key.id} already exists`);
      if (keysByHash.has(key.hash)) throw new Error(`a key with this hash already exists`);
      keys.set(key.id, copy(key));
      keysByHash.set(key.hash, key.id);
    },
    async findKeyByHash(hash) {
      open();
      const id = keysByHash.get(hash);
      const key = id === undefined ? undefined : keys.get(id);
      return key ? copy(key) : null;
    },
    async getKey(accountId, keyId) {
      open();
      const key = keys.get(keyId);
      return key && key.account_id === accountId ? copy(key) : null;
    },
    async listKeys(accountId) {
      open();
      return [...keys.values()]
        .filter((key) => key.account_id === accountId)
        .sort(byCreation)
        .map(copy);
    },
    async updateKey(accountId, keyId, patch) {
      open();
      const key = keys.get(keyId);
      if (!key || key.account_id !== accountId) return null;
      if (patch.expires_at !== undefined) key.expires_at = patch.expires_at;
      if (patch.revoked_at !== undefined) key.revoked_at = patch.revoked_at;
      if (patch.name !== undefined) key.name = patch.name;
      return copy(key);
    },
    async touchKey(keyId, at) {
      open();
      const key = keys.get(keyId);
      if (key) key.last_used_at = at;
    },

    async createToken(token) {
      open();
      if (tokens.has(token.id)) throw new Error(`token ${token.id} already exists`);
      if (tokensByHash.has(token.hash)) throw new Error(`a token with this hash already exists`);
      tokens.set(token.id, copy(token));
      tokensByHash.set(token.hash, token.id);
    },
    async findTokenByHash(hash) {
      open();
      const id = tokensByHash.get(hash);
      const token = id === undefined ? undefined : tokens.get(id);
      return token ? copy(token) : null;
    },
    async deleteExpiredTokens(now) {
      open();
      let deleted = 0;
      for (const token of tokens.values()) {
        if (token.expires_at > now) continue;
        tokens.delete(token.id);
        tokensByHash.delete(token.hash);
        deleted++;
      }
      return deleted;
    },

    async addWebhookSecret(secret) {
      open();
      if (secrets.has(secret.id)) throw new Error(`webhook secret ${secret.id} already exists`);
      secrets.set(secret.id, copy(secret));
    },
    async activeWebhookSecrets(accountId, now) {
      open();
      return [...secrets.values()]
        .filter((s) => s.account_id === accountId && (s.expires_at === null || s.expires_at > now))
        .sort(byCreation)
        .reverse()
        .map(copy);
    },
    async expireWebhookSecrets(accountId, keepId, expiresAt) {
      open();
      for (const secret of secrets.values()) {
        if (secret.account_id !== accountId || secret.id === keepId) continue;
        // Never lengthens a grace period already running (two rotations in a row).
        if (secret.expires_at === null || secret.expires_at > expiresAt) secret.expires_at = expiresAt;
      }
    },

    async recordUsage(accountId, endpoint, month, units, day) {
      open();
      assertMonth(month);
      assertUnits(units);
      if (day !== undefined) assertDay(day, month);
      return add({ accountId, endpoint, month, day, calls: 1, units });
    },
    async addUsage(increments) {
      open();
      assertIncrements(increments);
      for (const increment of increments) add(increment);
      return increments.map(({ accountId, month }) => {
        const lines = usage.get(accountId)?.get(month);
        return lines ? sumUnits(lines) : 0;
      });
    },
    async creditUsage(credit) {
      open();
      assertCredit(credit);
      const { accountId, key, endpoint, month, day, units } = credit;
      const applied = credits.get(accountId) ?? new Set<string>();
      credits.set(accountId, applied);
      if (applied.has(key)) return false;
      applied.add(key);
      // A line of 0 calls and -units when the billing is not recorded yet; it nets out then.
      add({ accountId, endpoint, month, day, calls: 0, units: -units });
      return true;
    },
    async usedUnits(accountId, month) {
      open();
      assertMonth(month);
      const lines = usage.get(accountId)?.get(month);
      return lines ? sumUnits(lines) : 0;
    },
    async usage(accountId, month) {
      open();
      assertMonth(month);
      const lines = usage.get(accountId)?.get(month);
      if (!lines) return [];
      return [...lines.values()].sort((a, b) => (a.endpoint < b.endpoint ? -1 : 1)).map(copy);
    },

    async usageByDay(accountId, month) {
      open();
      assertMonth(month);
      const days = daily.get(accountId);
      if (!days) return [];
      return [...days.values()]
        .filter((line) => line.day.startsWith(`${month}-`))
        .sort(byDayThenEndpoint)
        .map(copy);
    },

    async close() {
      closed = true;
    },
  };
}

function sumUnits(lines: Map<string, UsageLine>): number {
  let total = 0;
  for (const line of lines.values()) total += line.units;
  return total;
}
