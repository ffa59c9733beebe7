import type { SqliteDriver } from '@svc/core';
import { createPrivateDatabaseFile, type EmailVerificationResult, importOptionalPeer } from '@svc/core';
import type BetterSqlite3 from 'better-sqlite3';
import {
  type CachedResult,
  checkMaxEntries,
  type ResultCache,
  type ResultCacheOptions,
  resolveResultCacheTtls,
  resultExpiry,
} from './result-cache.js';

/** Options of createSqliteResultCache. */
export interface SqliteResultCacheOptions extends ResultCacheOptions {
  /** Database file, created (mode 0600: it holds addresses) if missing. `:memory:` keeps nothing. */
  path: string;
  /**
   * Most entries kept; beyond it the entries closest to expiry go first (checked every
   * `pruneEvery` writes, when expired entries are deleted too).
   * @default 1000000
   */
  maxEntries?: number;
  /** Writes between two prunes. @default 1000 */
  pruneEvery?: number;
  /** Milliseconds a write waits for another process's lock. @default 5000 */
  busyTimeoutMs?: number;
  /**
   * better-sqlite3's `Database` class, for an app that depends on it itself:
   * `(await import('better-sqlite3')).default`. Needed where this package cannot resolve it.
   * @default the better-sqlite3 this package resolves, loaded on first use
   */
  driver?: SqliteDriver;
}

// Loaded on first use, so apps on the memory cache never need the native addon.
async function loadDriver(): Promise<typeof BetterSqlite3> {
  const { default: Database } = await importOptionalPeer(() => import('better-sqlite3'), {
    user: 'the SQLite result cache',
    needs: 'better-sqlite3',
    install: 'better-sqlite3@12',
    from: '@svc/email-verifier',
    otherwise: 'passed as the `driver` option',
  });
  return Database;
}

type Row = { result: string; cached_at: number; expires_at: number };

/**
 * A result cache in a SQLite file (WAL): survives restarts, and every process that opens the
 * file (a server and the CLI on one data dir) shares it. Expired entries are never returned and
 * are deleted by the periodic prune; invalidation deletes rows (no soft deletes).
 */
export async function createSqliteResultCache(options: SqliteResultCacheOptions): Promise<ResultCache> {
  const ttls = resolveResultCacheTtls(options.ttlSeconds);
  const maxEntries = checkMaxEntries(options.maxEntries ?? 1_000_000, 'maxEntries');
  const pruneEvery = checkMaxEntries(options.pruneEvery ?? 1000, 'pruneEvery');
  const Database = (options.driver as typeof BetterSqlite3 | undefined) ?? (await loadDriver());
  let db: BetterSqlite3.Database;
  try {
    createPrivateDatabaseFile(options.path);
    db = new Database(options.path);
  } catch (error) {
    throw new Error(`cannot open the result cache ${options.path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
  db.exec(`
    CREATE TABLE IF NOT EXISTS email_result_cache (
      namespace TEXT NOT NULL,
      address TEXT NOT NULL,
      variant TEXT NOT NULL,
      result TEXT NOT NULL,
      cached_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL,
      PRIMARY KEY (namespace, address, variant)
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS email_result_cache_expiry ON email_result_cache (expires_at);
    CREATE INDEX IF NOT EXISTS email_result_cache_address ON email_result_cache (address);
  `);
  const select = db.prepare<[string, string, string, number], Row>(
    `SELECT result, cached_at, expires_at FROM email_result_cache
     WHERE namespace = ? AND address = ? AND variant = ? AND expires_at > ?`,
  );
  const upsert = db.prepare<[string, string, string, string, number, number]>(
    `INSERT INTO email_result_cache (namespace, address, variant, result, cached_at, expires_at)
     VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (namespace, address, variant) DO UPDATE SET
       result = excluded.result, cached_at = excluded.cached_at, expires_at = excluded.expires_at`,
  );
  const removeOne = db.prepare<[string, string, string]>(
    'DELETE FROM email_result_cache WHERE namespace = ? AND address = ? AND variant = ?',
  );
  const removeAddress = db.prepare<[string, string]>(
    'DELETE FROM email_result_cache WHERE namespace = ? AND address = ?',
  );
  const removeEverywhere = db.prepare<[string]>('DELETE FROM email_result_cache WHERE address = ?');
  const removeExpired = db.prepare<[number]>('DELETE FROM email_result_cache WHERE expires_at <= ?');
  const count = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM email_result_cache');
  const removeSoonest = db.prepare<[number]>(
    `DELETE FROM email_result_cache WHERE (namespace, address, variant) IN
     (SELECT namespace, address, variant FROM email_result_cache ORDER BY expires_at LIMIT ?)`,
  );
  const readAll = db.transaction((keys: Parameters<ResultCache['get']>[0], now: number) =>
    keys.map((key) => select.get(key.namespace, key.address, key.variant, now)),
  );
  let writes = 0;
  const prune = (now: number) => {
    removeExpired.run(now);
    const excess = (count.get()?.n ?? 0) - maxEntries;
    if (excess > 0) removeSoonest.run(excess);
  };
  const writeAll = db.transaction((batch: Parameters<ResultCache['set']>[0], now: number) => {
    for (const { key, result } of batch) {
      const expiresAt = resultExpiry(ttls, result.state, now);
      // An answer not worth keeping still replaces the older one it contradicts.
      if (expiresAt === null) removeOne.run(key.namespace, key.address, key.variant);
      else upsert.run(key.namespace, key.address, key.variant, JSON.stringify(result), now, expiresAt);
    }
    writes += batch.length;
    if (writes >= pruneEvery) {
      writes = 0;
      prune(now);
    }
  });

  return {
    async get(keys, now) {
      return readAll(keys, now).map((row): CachedResult | undefined =>
        row
          ? {
              result: JSON.parse(row.result) as EmailVerificationResult,
              cachedAt: row.cached_at,
              expiresAt: row.expires_at,
            }
          : undefined,
      );
    },
    async set(batch, now) {
      if (batch.length > 0) writeAll(batch, now);
    },
    async invalidate(address, namespace) {
      return (namespace === undefined ? removeEverywhere.run(address) : removeAddress.run(namespace, address))
        .changes;
    },
    async close() {
      if (db.open) db.close();
    },
  };
}
