import type { EmailVerificationResult } from '@svc/core';
import {
  checkedPostgresSchema,
  openMigratedPostgres,
  type PostgresMigration,
  type PostgresPoolOptions,
} from '@svc/core/postgres';
import {
  type CachedResult,
  checkMaxEntries,
  type ResultCache,
  type ResultCacheKey,
  type ResultCacheOptions,
  resolveResultCacheTtls,
  resultExpiry,
} from './result-cache.js';

/** Options of createPostgresResultCache. */
export interface PostgresResultCacheOptions extends ResultCacheOptions, PostgresPoolOptions {
  /**
   * The schema holding the cache's table, created if missing: lowercase letters, digits and `_`,
   * starting with a letter or `_`, at most 63 characters.
   * @default 'svc_verify'
   */
  schema?: string;
  /** Connections of the pool opened from `connectionString` (ignored with `pool`). @default 4 */
  poolSize?: number;
  /**
   * Most entries kept; beyond it the entries closest to expiry go first (checked every
   * `pruneEvery` writes of this process, when expired entries are deleted too).
   * @default 1000000
   */
  maxEntries?: number;
  /** Writes between two prunes. @default 1000 */
  pruneEvery?: number;
}

/**
 * The cache's schema, one entry per version (`email_result_cache_migrations` lists those
 * applied). Never edit an entry that has shipped: add the next one. Version 1 is written with
 * `IF NOT EXISTS` because caches created before versions were recorded already have it.
 */
const MIGRATIONS: readonly PostgresMigration[] = [
  {
    name: 'email_result_cache with its expiry and address indexes',
    sql: (s) => `
    CREATE TABLE IF NOT EXISTS ${s}.email_result_cache (
      namespace TEXT NOT NULL,
      address TEXT NOT NULL,
      variant TEXT NOT NULL,
      result TEXT NOT NULL,
      cached_at BIGINT NOT NULL,
      expires_at BIGINT NOT NULL,
      PRIMARY KEY (namespace, address, variant)
    );
    CREATE INDEX IF NOT EXISTS email_result_cache_expiry ON ${s}.email_result_cache (expires_at);
    CREATE INDEX IF NOT EXISTS email_result_cache_address ON ${s}.email_result_cache (address);`,
  },
];

type Row = { i: string; result: string; cached_at: string; expires_at: string };

/**
 * A result cache in PostgreSQL: every process and machine using the database shares it (a server
 * scaled out over several machines probes an address once, not once per machine). Rows hold the
 * result as JSON text (a TEXT column, as SQLite's: an SMTP reply may carry characters jsonb
 * refuses). Expired rows are never returned and are deleted by the periodic prune.
 */
export async function createPostgresResultCache(options: PostgresResultCacheOptions): Promise<ResultCache> {
  const ttls = resolveResultCacheTtls(options.ttlSeconds);
  const maxEntries = checkMaxEntries(options.maxEntries ?? 1_000_000, 'maxEntries');
  const pruneEvery = checkMaxEntries(options.pruneEvery ?? 1000, 'pruneEvery');
  const schema = checkedPostgresSchema(options.schema, 'svc_verify');
  // Under an advisory lock: processes starting together create the table once.
  const { opened } = await openMigratedPostgres(
    options,
    {
      store: 'the PostgreSQL result cache',
      database: 'the email result cache database',
      from: '@svc/email-verifier',
      loadPg: () => import('pg'),
      defaultPoolSize: 4,
    },
    {
      schema,
      migrations: MIGRATIONS,
      table: 'email_result_cache_migrations',
      // Any constant shared by every process that migrates this cache (other stores' differ).
      lockKey: 0x5_e3_ca,
      versionOf: 'result cache version',
      packageName: '@svc/email-verifier',
    },
  );
  const { pool: db, owned } = opened;
  const table = `"${schema}".email_result_cache`;

  const columns = (keys: readonly ResultCacheKey[]) => [
    keys.map((key) => key.namespace),
    keys.map((key) => key.address),
    keys.map((key) => key.variant),
  ];
  let writes = 0;
  let closed = false;
  const prune = async (now: number) => {
    await db.query(`DELETE FROM ${table} WHERE expires_at <= $1`, [now]);
    const { rows } = await db.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`);
    const excess = Number(rows[0]?.n ?? 0) - maxEntries;
    if (excess > 0) {
      await db.query(
        `DELETE FROM ${table} WHERE (namespace, address, variant) IN
         (SELECT namespace, address, variant FROM ${table} ORDER BY expires_at LIMIT $1)`,
        [excess],
      );
    }
  };

  return {
    async get(keys, now) {
      const found: Array<CachedResult | undefined> = keys.map(() => undefined);
      if (keys.length === 0) return found;
      const { rows } = await db.query<Row>(
        `SELECT k.i, c.result, c.cached_at, c.expires_at
         FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS k(namespace, address, variant, i)
         JOIN ${table} c USING (namespace, address, variant)
         WHERE c.expires_at > $4`,
        [...columns(keys), now],
      );
      for (const row of rows) {
        found[Number(row.i) - 1] = {
          result: JSON.parse(row.result) as EmailVerificationResult,
          cachedAt: Number(row.cached_at),
          expiresAt: Number(row.expires_at),
        };
      }
      return found;
    },
    async set(batch, now) {
      // One row per key (the last wins): an upsert may not touch a row twice.
      const latest = new Map<string, (typeof batch)[number]>();
      for (const entry of batch) {
        latest.set(`${entry.key.namespace}\u0000${entry.key.address}\u0000${entry.key.variant}`, entry);
      }
      const stored: Array<{ key: ResultCacheKey; json: string; expiresAt: number }> = [];
      const dropped: ResultCacheKey[] = [];
      for (const { key, result } of latest.values()) {
        const expiresAt = resultExpiry(ttls, result.state, now);
        // An answer not worth keeping still replaces the older one it contradicts.
        if (expiresAt === null) dropped.push(key);
        else stored.push({ key, json: JSON.stringify(result), expiresAt });
      }
      if (dropped.length > 0) {
        await db.query(
          `DELETE FROM ${table} c USING unnest($1::text[], $2::text[], $3::text[]) AS k(namespace, address, variant)
           WHERE c.namespace = k.namespace AND c.address = k.address AND c.variant = k.variant`,
          columns(dropped),
        );
      }
      if (stored.length > 0) {
        await db.query(
          `INSERT INTO ${table} (namespace, address, variant, result, cached_at, expires_at)
           SELECT k.namespace, k.address, k.variant, k.result, $5, k.expires_at
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $6::bigint[])
             AS k(namespace, address, variant, result, expires_at)
           ON CONFLICT (namespace, address, variant) DO UPDATE SET
             result = excluded.result, cached_at = excluded.cached_at, expires_at = excluded.expires_at`,
          [
            ...columns(stored.map((entry) => entry.key)),
            stored.map((entry) => entry.json),
            now,
            stored.map((entry) => entry.expiresAt),
          ],
        );
      }
      writes += latest.size;
      if (writes >= pruneEvery) {
        writes = 0;
        await prune(now);
      }
    },
    async invalidate(address, namespace) {
      const result =
        namespace === undefined
          ? await db.query(`DELETE FROM ${table} WHERE address = $1`, [address])
          : await db.query(`DELETE FROM ${table} WHERE namespace = $1 AND address = $2`, [
              namespace,
              address,
            ]);
      return result.rowCount ?? 0;
    },
    async close() {
      if (!owned || closed) return;
      closed = true;
      await db.end();
    },
  };
}
