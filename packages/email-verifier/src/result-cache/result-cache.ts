import type { EmailVerificationResult, VerificationState } from '@svc/core';

/**
 * The result cache seam: final verification results kept per normalised address, so verifying
 * the same address again within a state's TTL does not probe its mail server again (each probe
 * costs the prober reputation). Implementations: memory (the verifier's default), SQLite (a
 * file that survives restarts and is shared by the processes that open it) and PostgreSQL (shared
 * by every process and machine on the database); each passes the one conformance suite in
 * `testing/describe-result-cache.ts`.
 */

/** Where one result is kept. */
export interface ResultCacheKey {
  /**
   * Whose result it is: a server's account id, so one account's results are never served to
   * another; the library's default is `''` (one namespace).
   */
  namespace: string;
  /** The normalised address, lowercased (`verifyMany` counts those as one address too). */
  address: string;
  /** The options that change the result (`resultCacheVariant`): another variant is another entry. */
  variant: string;
}

/** A result as the cache hands it back. */
export interface CachedResult {
  result: EmailVerificationResult;
  /** When it was stored, ms since the epoch. */
  cachedAt: number;
  /** ms since the epoch; the cache never returns the entry at or after this time. */
  expiresAt: number;
}

export interface ResultCache {
  /** The live entry of each key at `now` (ms), in the order of `keys`; undefined when missing or expired. */
  get(keys: readonly ResultCacheKey[], now: number): Promise<Array<CachedResult | undefined>>;
  /**
   * Stores (or replaces) each result at `now`, with the TTL of its state; a state whose TTL is 0
   * is not stored (and replaces nothing).
   */
  set(
    entries: ReadonlyArray<{ key: ResultCacheKey; result: EmailVerificationResult }>,
    now: number,
  ): Promise<void>;
  /**
   * Drops every variant of the normalised `address` in `namespace`, or in every namespace when
   * `namespace` is undefined (an operator's "forget this address"); returns how many entries.
   */
  invalidate(address: string, namespace?: string): Promise<number>;
  /** Frees what the cache holds open (the SQLite file). */
  close(): Promise<void>;
}

/** TTLs by result state, in seconds. */
export type ResultCacheTtls = Record<VerificationState, number>;

/**
 * Default TTLs, each chosen for how fast the answer goes stale and what a stale answer costs:
 * - `undeliverable` 30 days: a mailbox that does not exist rarely comes back, and serving the
 *   verdict again costs nothing; re-probing a dead address is what gets probers listed.
 * - `deliverable` 7 days: mailboxes are closed every day (lists decay by roughly 2% a month), and a
 *   stale "deliverable" costs the user a bounce, which is what they verified to avoid; a week
 *   keeps that below about 0.5%.
 * - `risky` 1 day: its causes move at different speeds (a full mailbox is emptied within days, a
 *   catch-all setup rarely changes); a day keeps repeated lists cheap without keeping a cleared
 *   `mailbox_full` for long.
 * - `unknown` 5 minutes: most unknowns are temporary (greylisting asks the sender to come back
 *   after about 5 minutes, Postgrey's default; timeouts, rate limits). A retry after that probes
 *   again and may pass, while a client hammering the same address meanwhile gets the cached answer
 *   instead of costing more reputation.
 */
export const DEFAULT_RESULT_CACHE_TTLS: Readonly<ResultCacheTtls> = Object.freeze({
  deliverable: 7 * 24 * 3600,
  undeliverable: 30 * 24 * 3600,
  risky: 24 * 3600,
  unknown: 5 * 60,
});

/** Options every result cache takes. */
export interface ResultCacheOptions {
  /**
   * Seconds a result is served, by its state; 0 never stores that state. Unlisted states keep
   * their defaults.
   * @default DEFAULT_RESULT_CACHE_TTLS (deliverable 7 d, undeliverable 30 d, risky 1 d, unknown 5 min)
   */
  ttlSeconds?: Partial<ResultCacheTtls>;
}

const STATES = Object.keys(DEFAULT_RESULT_CACHE_TTLS) as VerificationState[];

/** The TTLs with defaults applied; a bad value throws a TypeError naming the state. */
export function resolveResultCacheTtls(ttlSeconds: Partial<ResultCacheTtls> = {}): ResultCacheTtls {
  for (const name of Object.keys(ttlSeconds)) {
    if (!STATES.includes(name as VerificationState))
      throw new TypeError(`ttlSeconds.${name} is not a verification state (expected ${STATES.join(', ')})`);
  }
  const ttls = { ...DEFAULT_RESULT_CACHE_TTLS };
  for (const state of STATES) {
    const value = ttlSeconds[state];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
      throw new TypeError(`ttlSeconds.${state} must be a number of seconds >= 0, got ${String(value)}`);
    ttls[state] = value;
  }
  return ttls;
}

/** When a result stored at `now` expires, or null when its state is not stored at all. */
export function resultExpiry(ttls: ResultCacheTtls, state: VerificationState, now: number): number | null {
  const seconds = ttls[state];
  return seconds > 0 ? now + seconds * 1000 : null;
}

/**
 * The part of a key that the call's options decide. `probe_mailbox` changes everything about the
 * mailbox (a result without a probe must never answer a request for one, and a probed one is not
 * what a caller who asked for no probe gets either); `check_disposable` changes `is_disposable`,
 * the reasons and the state. `fresh` only decides whether the cache is read, so it is not part of
 * the key.
 */
export function resultCacheVariant(checks: { probe_mailbox: boolean; check_disposable: boolean }): string {
  return `probe=${checks.probe_mailbox ? 1 : 0};disposable=${checks.check_disposable ? 1 : 0}`;
}

/** Checks a maxEntries option (shared by the implementations). */
export function checkMaxEntries(value: number, what: string): number {
  if (!Number.isInteger(value) || value < 1)
    throw new TypeError(`${what} must be a positive integer, got ${String(value)}`);
  return value;
}
