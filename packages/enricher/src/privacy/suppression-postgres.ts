import { type EnrichPostgresOptions, openEnrichPostgres } from '../postgres/connect.js';
import { checkHash, type SuppressionList } from './suppression.js';

/** Options of createPostgresSuppression: where (see `EnrichPostgresOptions`). */
export type PostgresSuppressionOptions = EnrichPostgresOptions;

/**
 * A suppression list in PostgreSQL: every process and machine on the database refuses an erased
 * subject as soon as the erase has committed, whichever of them ran it. Hashes only.
 */
export async function createPostgresSuppression(
  options: PostgresSuppressionOptions,
): Promise<SuppressionList> {
  const {
    pool: db,
    owned,
    schema,
  } = await openEnrichPostgres(options, 'the PostgreSQL enrichment suppression list');
  const table = `${schema}.enrich_suppression`;
  let closed = false;
  return {
    async has(hash) {
      const { rowCount } = await db.query(`SELECT 1 FROM ${table} WHERE hash = $1`, [hash]);
      return (rowCount ?? 0) > 0;
    },
    async add(hash, at) {
      await db.query(`INSERT INTO ${table} (hash, added_at) VALUES ($1, $2) ON CONFLICT (hash) DO NOTHING`, [
        checkHash(hash),
        at,
      ]);
    },
    async remove(hash) {
      const { rowCount } = await db.query(`DELETE FROM ${table} WHERE hash = $1`, [hash]);
      return (rowCount ?? 0) > 0;
    },
    async close() {
      if (!owned || closed) return;
      closed = true;
      await db.end();
    },
  };
}
