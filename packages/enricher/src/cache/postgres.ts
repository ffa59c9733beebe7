import { type EnrichPostgresOptions, openEnrichPostgres } from '../postgres/connect.js';
import { type CacheOptions, cappedExpiry, checkRetention, type EnrichmentCache } from './types.js';

/** Options of createPostgresCache: the retention limit, and where (see `EnrichPostgresOptions`). */
export interface PostgresCacheOptions extends CacheOptions, EnrichPostgresOptions {}

type Row = { value: string; stored_at: string; expires_at: string; subjects: string[] | null };

/**
 * A cache in PostgreSQL: every process and machine on the database shares it, so an erase
 * (`purgeSubject`) through any of them deletes the entries for all at once. Erase and expiry
 * delete rows (no soft deletes); the subjects go with their entry (ON DELETE CASCADE).
 */
export async function createPostgresCache(options: PostgresCacheOptions): Promise<EnrichmentCache> {
  const retention = checkRetention(options.retentionSeconds);
  const { pool: db, owned, schema } = await openEnrichPostgres(options, 'the PostgreSQL enrichment cache');
  const cache = `${schema}.enrich_cache`;
  const subjects = `${schema}.enrich_cache_subjects`;
  let closed = false;
  return {
    async get(key, now) {
      const { rows } = await db.query<Row>(
        `SELECT c.value, c.stored_at, c.expires_at,
           ARRAY(SELECT s.subject FROM ${subjects} s WHERE s.key = c.key) AS subjects
         FROM ${cache} c WHERE c.key = $1 AND c.expires_at > $2`,
        [key, now],
      );
      const row = rows[0];
      if (!row) return undefined;
      return {
        value: row.value,
        storedAt: Number(row.stored_at),
        expiresAt: Number(row.expires_at),
        subjects: row.subjects ?? [],
      };
    },
    async set(key, entry) {
      // One statement, so the entry and its subjects change together (a reader never sees the
      // new value with the old subjects, which an erase would then miss).
      await db.query(
        `WITH entry AS (
           INSERT INTO ${cache} (key, value, stored_at, expires_at) VALUES ($1, $2, $3, $4)
           ON CONFLICT (key) DO UPDATE SET value = excluded.value, stored_at = excluded.stored_at,
             expires_at = excluded.expires_at
           RETURNING key
         ),
         old AS (DELETE FROM ${subjects} WHERE key = $1 AND NOT (subject = ANY($5::text[])))
         INSERT INTO ${subjects} (subject, key)
           SELECT DISTINCT s, (SELECT key FROM entry) FROM unnest($5::text[]) AS s
         ON CONFLICT DO NOTHING`,
        [key, entry.value, entry.storedAt, cappedExpiry(entry, retention), [...entry.subjects]],
      );
    },
    async purgeSubject(subject) {
      const result = await db.query(
        `DELETE FROM ${cache} WHERE key IN (SELECT key FROM ${subjects} WHERE subject = $1)`,
        [subject],
      );
      return result.rowCount ?? 0;
    },
    async prune(now) {
      const result = await db.query(`DELETE FROM ${cache} WHERE expires_at <= $1`, [now]);
      return result.rowCount ?? 0;
    },
    async close() {
      if (!owned || closed) return;
      closed = true;
      await db.end();
    },
  };
}
