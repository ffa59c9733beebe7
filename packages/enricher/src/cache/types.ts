/**
 * The cache seam: the orchestrator stores each adapter's outcome for one normalised query (a hit's
 * candidates, or a miss) under a key, with an expiry from the adapter's TTLs, and the hashed
 * identifiers the entry is about (`subjects`) so `erase` can purge everything about a person.
 * Implementations: memory (one process) and SQLite (survives restarts); both pass the one
 * conformance suite in `testing/describe-cache.ts`.
 */

/** One stored outcome. `value` is opaque JSON text to the cache. */
export interface CacheEntry {
  value: string;
  /** ms since the epoch. */
  storedAt: number;
  /** ms since the epoch; the cache never returns the entry at or after this time. */
  expiresAt: number;
  /** SHA-256 hex of each identifier the entry is about (the query's, and strong keys in its candidates). */
  subjects: readonly string[];
}

export interface CacheOptions {
  /**
   * Retention limit: no entry is kept longer than this after it was stored, whatever the
   * adapter's TTL says. @default 2592000 (30 days)
   */
  retentionSeconds?: number;
}

export const DEFAULT_RETENTION_SECONDS = 30 * 24 * 3600;

export interface EnrichmentCache {
  /** The live entry under `key` at time `now` (ms), or undefined when missing or expired. */
  get(key: string, now: number): Promise<CacheEntry | undefined>;
  /** Stores (or replaces) the entry; its expiry is capped at `storedAt + retention`. */
  set(key: string, entry: CacheEntry): Promise<void>;
  /** Deletes every entry listing this subject hash; returns how many. */
  purgeSubject(subject: string): Promise<number>;
  /** Deletes every entry expired at `now`; returns how many. */
  prune(now: number): Promise<number>;
  close(): Promise<void>;
}

/** The expiry an entry gets: its own, capped by the retention limit. */
export function cappedExpiry(entry: CacheEntry, retentionSeconds: number): number {
  return Math.min(entry.expiresAt, entry.storedAt + retentionSeconds * 1000);
}

export function checkRetention(retentionSeconds: number | undefined): number {
  const value = retentionSeconds ?? DEFAULT_RETENTION_SECONDS;
  if (!Number.isFinite(value) || value <= 0) {
    throw new RangeError(
      `retentionSeconds must be a positive number of seconds, got ${String(retentionSeconds)}`,
    );
  }
  return value;
}
