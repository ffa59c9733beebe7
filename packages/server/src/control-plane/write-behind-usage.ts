import { type ControlPlaneStore, MAX_USAGE_INCREMENTS, type UsageIncrement } from './store.js';
import { assertDay, assertMonth, assertUnits } from './stores/checks.js';

/** Options of {@link createWriteBehindUsageStore}. */
export interface WriteBehindUsageOptions {
  /** Milliseconds between two writes of the buffered usage to the store. @default 250 */
  flushIntervalMs?: number;
  /**
   * Milliseconds a month total read from the store is trusted while this process adds nothing to
   * it; then it is read again, so what other processes flushed shows up. @default flushIntervalMs
   */
  totalMaxAgeMs?: number;
  /** Called when a timed flush fails; its usage stays buffered for the next one. @default none */
  onFlushError?: (error: Error) => void;
}

/** A store whose usage is written behind. */
export interface WriteBehindUsageStore extends ControlPlaneStore {
  /** Writes the buffered usage to the store; resolves once it is there (or rejects with why not). */
  flush(): Promise<void>;
  /**
   * `recordUsage` answered at once, as the month's total is kept in memory: the month's units
   * after the call, or `undefined` when the total must be read from the store first (then nothing
   * was recorded, and the caller calls `recordUsage`). The usage plugin uses it so that a billable
   * answer does not wait a promise's turn.
   */
  recordUsageSync(
    accountId: string,
    endpoint: string,
    month: string,
    units: number,
    day?: string,
  ): number | undefined;
}

/** The stores createWriteBehindUsageStore made. */
const writeBehindStores = new WeakSet<ControlPlaneStore>();

/** Whether `store` is one createWriteBehindUsageStore made (and so has `recordUsageSync`). */
export function isWriteBehindUsageStore(store: ControlPlaneStore): store is WriteBehindUsageStore {
  return writeBehindStores.has(store);
}

/** One account-month as this process knows it. */
interface Total {
  /** The store's total when last read or returned by a flush (our flushed usage included). */
  base: number;
  /** Units in a flush under way. */
  inflight: number;
  /** Units buffered for the next flush. */
  pending: number;
  /** When `base` was read (ms since the epoch). */
  syncedAt: number;
  /** When a request last asked (for dropping idle entries). */
  usedAt: number;
  /** Bumped by every flush of this total: a read that raced one is not trusted. */
  epoch: number;
}

const IDLE_TOTAL_MS = 60_000;

const lineKey = (accountId: string, endpoint: string, month: string, day: string | undefined) =>
  `${accountId}\u0000${month}\u0000${endpoint}\u0000${day ?? ''}`;
const totalKey = (accountId: string, month: string) => `${accountId}\u0000${month}`;

/**
 * Wraps a ControlPlaneStore so billable calls are not written one transaction each: `recordUsage`
 * adds to an in-process buffer and answers the month's total at once; the buffer goes to the
 * store in one `addUsage` transaction every `flushIntervalMs`, on `flush()`, before `usage()` and
 * `usageByDay()` read, and on `close()`. Everything else passes straight through.
 *
 * What it changes: in one process the totals (`recordUsage`, `usedUnits`, so the quota) stay
 * exact, as the buffer is counted in them. A crash (not a SIGTERM, which closes) loses the last
 * interval's usage: the calls were served and are not billed, never the reverse. With several
 * processes on one store, each sees the others' usage up to about `flushIntervalMs +
 * totalMaxAgeMs` late, so an account can pass its allowance by what the others serve it in that
 * time.
 */
export function createWriteBehindUsageStore(
  store: ControlPlaneStore,
  options: WriteBehindUsageOptions = {},
): WriteBehindUsageStore {
  const flushIntervalMs = options.flushIntervalMs ?? 250;
  if (!Number.isInteger(flushIntervalMs) || flushIntervalMs < 1) {
    throw new TypeError(`flushIntervalMs must be a whole number ≥ 1, got ${flushIntervalMs}`);
  }
  const totalMaxAgeMs = options.totalMaxAgeMs ?? flushIntervalMs;
  if (!Number.isInteger(totalMaxAgeMs) || totalMaxAgeMs < 0) {
    throw new TypeError(`totalMaxAgeMs must be a whole number ≥ 0, got ${totalMaxAgeMs}`);
  }
  const pending = new Map<string, UsageIncrement>();
  const totals = new Map<string, Total>();
  // One read of a total at a time per account-month, shared by the requests asking meanwhile.
  const reading = new Map<string, Promise<Total>>();
  let flushing: Promise<void> = Promise.resolve();
  let closed = false;

  const open = () => {
    if (closed) throw new Error('the control-plane store is closed');
  };

  /** The account-month's entry when it needs no read (the hot path: no promise, no await). */
  const cached = (key: string, now: number): Total | undefined => {
    const known = totals.get(key);
    // While a flush of it is under way, the flush brings the store's figure back.
    if (known && (known.inflight > 0 || now - known.syncedAt <= totalMaxAgeMs)) {
      known.usedAt = now;
      return known;
    }
    return undefined;
  };

  /** The account-month's entry, read from the store when missing or stale. */
  const fresh = async (accountId: string, month: string): Promise<Total> => {
    const key = totalKey(accountId, month);
    const now = Date.now();
    const hit = cached(key, now);
    if (hit) return hit;
    const known = totals.get(key);
    let read = reading.get(key);
    if (!read) {
      const epoch = known?.epoch;
      read = store
        .usedUnits(accountId, month)
        .then((stored) => {
          const total = totals.get(key);
          if (!total) {
            const created = { base: stored, inflight: 0, pending: 0, syncedAt: now, usedAt: now, epoch: 0 };
            totals.set(key, created);
            return created;
          }
          // A flush that started or ended during the read makes the figure ambiguous: keep ours.
          if (total.epoch === epoch && total.inflight === 0) {
            total.base = stored;
            total.syncedAt = now;
          }
          return total;
        })
        .finally(() => reading.delete(key));
      reading.set(key, read);
    }
    const total = await read;
    total.usedAt = now;
    return total;
  };

  const sum = (total: Total) => total.base + total.inflight + total.pending;

  const writeBuffered = async (): Promise<void> => {
    if (pending.size === 0) return;
    const lines = [...pending.values()];
    pending.clear();
    // Units per account-month in this flush, moved from pending to in flight.
    const moved = new Map<string, number>();
    for (const line of lines) {
      const key = totalKey(line.accountId, line.month);
      moved.set(key, (moved.get(key) ?? 0) + line.units);
    }
    for (const [key, units] of moved) {
      const total = totals.get(key) as Total;
      total.pending -= units;
      total.inflight += units;
      total.epoch++;
    }
    let done = 0;
    try {
      for (; done < lines.length; done += MAX_USAGE_INCREMENTS) {
        const chunk = lines.slice(done, done + MAX_USAGE_INCREMENTS);
        const after = await store.addUsage(chunk);
        const now = Date.now();
        chunk.forEach((line, i) => {
          const key = totalKey(line.accountId, line.month);
          const total = totals.get(key) as Total;
          total.inflight -= line.units;
          total.base = after[i] as number;
          total.syncedAt = now;
        });
      }
    } catch (error) {
      // What was not written goes back to the buffer, merged with what arrived meanwhile.
      for (const line of lines.slice(done)) {
        buffer(line);
        const total = totals.get(totalKey(line.accountId, line.month)) as Total;
        total.inflight -= line.units;
        total.pending += line.units;
      }
      throw new Error(
        `could not write the buffered usage to the control-plane store: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    } finally {
      for (const key of moved.keys()) (totals.get(key) as Total).epoch++;
    }
  };

  /** Adds a billable call to the buffer and to its month's total. */
  const add = (
    total: Total,
    accountId: string,
    endpoint: string,
    month: string,
    units: number,
    day?: string,
  ) => {
    buffer({ accountId, endpoint, month, day, calls: 1, units });
    total.pending += units;
  };

  /** Adds a line to the buffer (not to the totals). */
  const buffer = (line: UsageIncrement) => {
    const key = lineKey(line.accountId, line.endpoint, line.month, line.day);
    const known = pending.get(key);
    if (known) {
      known.calls += line.calls;
      known.units += line.units;
    } else {
      pending.set(key, { ...line });
    }
  };

  const flush = (): Promise<void> => {
    // One flush at a time, in order: a flush asked for during another runs after it.
    const next = flushing.then(writeBuffered, writeBuffered);
    flushing = next.catch(() => {});
    return next;
  };

  const dropIdleTotals = () => {
    const before = Date.now() - IDLE_TOTAL_MS;
    for (const [key, total] of totals) {
      if (total.usedAt < before && total.pending === 0 && total.inflight === 0 && !reading.has(key)) {
        totals.delete(key);
      }
    }
  };

  const recordUsageSync = (
    accountId: string,
    endpoint: string,
    month: string,
    units: number,
    day?: string,
  ): number | undefined => {
    open();
    assertMonth(month);
    assertUnits(units);
    if (day !== undefined) assertDay(day, month);
    const total = cached(totalKey(accountId, month), Date.now());
    if (!total) return undefined;
    add(total, accountId, endpoint, month, units, day);
    return sum(total);
  };

  const timer = setInterval(() => {
    dropIdleTotals();
    if (pending.size === 0) return;
    flush().catch((error: Error) => options.onFlushError?.(error));
  }, flushIntervalMs);
  // The timer never keeps a process alive: close() writes what is left.
  timer.unref();

  const wrapped: WriteBehindUsageStore = {
    upsertPlan: (plan) => store.upsertPlan(plan),
    getPlan: (id) => store.getPlan(id),
    listPlans: () => store.listPlans(),
    createAccount: (account) => store.createAccount(account),
    createFirstAccount: (account) => store.createFirstAccount(account),
    getAccount: (id) => store.getAccount(id),
    listAccounts: () => store.listAccounts(),
    updateAccount: (id, patch) => store.updateAccount(id, patch),
    createKey: (key) => store.createKey(key),
    findKeyByHash: (hash) => store.findKeyByHash(hash),
    getKey: (accountId, keyId) => store.getKey(accountId, keyId),
    listKeys: (accountId) => store.listKeys(accountId),
    updateKey: (accountId, keyId, patch) => store.updateKey(accountId, keyId, patch),
    touchKey: (keyId, at) => store.touchKey(keyId, at),
    createToken: (token) => store.createToken(token),
    findTokenByHash: (hash) => store.findTokenByHash(hash),
    deleteExpiredTokens: (now) => store.deleteExpiredTokens(now),
    addWebhookSecret: (secret) => store.addWebhookSecret(secret),
    activeWebhookSecrets: (accountId, now) => store.activeWebhookSecrets(accountId, now),
    expireWebhookSecrets: (accountId, keepId, expiresAt) =>
      store.expireWebhookSecrets(accountId, keepId, expiresAt),

    recordUsageSync,
    async recordUsage(accountId, endpoint, month, units, day) {
      const now = recordUsageSync(accountId, endpoint, month, units, day);
      if (now !== undefined) return now;
      const total = await fresh(accountId, month);
      open();
      // From here to the return nothing awaits: each call sees its own running total.
      add(total, accountId, endpoint, month, units, day);
      return sum(total);
    },
    async addUsage(lines) {
      open();
      // Ours first, so the totals returned count every call this process served.
      await flush();
      const after = await store.addUsage(lines);
      // Those lines are in the store but not in our bases: read the totals again next time.
      for (const line of lines) {
        const total = totals.get(totalKey(line.accountId, line.month));
        if (total) total.syncedAt = Number.NEGATIVE_INFINITY;
      }
      return after;
    },
    async creditUsage(credit) {
      open();
      // The units credited may still be buffered: a credit lowers only what the store holds.
      await flush();
      const applied = await store.creditUsage(credit);
      const total = totals.get(totalKey(credit.accountId, credit.month));
      if (total) total.syncedAt = Number.NEGATIVE_INFINITY;
      return applied;
    },
    async usedUnits(accountId, month) {
      open();
      assertMonth(month);
      return sum(cached(totalKey(accountId, month), Date.now()) ?? (await fresh(accountId, month)));
    },
    async usage(accountId, month) {
      open();
      await flush();
      return store.usage(accountId, month);
    },
    async usageByDay(accountId, month) {
      open();
      await flush();
      return store.usageByDay(accountId, month);
    },
    flush() {
      open();
      return flush();
    },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      try {
        await flush();
      } finally {
        await store.close();
      }
    },
  };
  writeBehindStores.add(wrapped);
  return wrapped;
}
