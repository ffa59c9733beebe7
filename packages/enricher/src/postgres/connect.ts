import {
  checkedPostgresSchema,
  openMigratedPostgres,
  type PgPool,
  type PostgresMigration,
  type PostgresMigrationOutcome,
  type PostgresPoolOptions,
} from '@svc/core/postgres';

/**
 * Where the PostgreSQL enrichment cache and suppression list live: a URL or a pool (see
 * `PostgresPoolOptions` in `@svc/core/postgres`) and a schema. The cache and the suppression list
 * may share one schema (the default), as they share one SQLite file.
 */
export interface EnrichPostgresOptions extends PostgresPoolOptions {
  /**
   * The schema holding the tables, created if missing: lowercase letters, digits and `_`,
   * starting with a letter or `_`, at most 63 characters.
   * @default 'svc_enrich'
   */
  schema?: string;
  /** Connections of the pool opened from `connectionString` (ignored with `pool`). @default 4 */
  poolSize?: number;
}

export const DEFAULT_ENRICH_SCHEMA = 'svc_enrich';

/**
 * The enrichment schema, one entry per version (`enrich_schema_migrations` lists those applied).
 * Never edit an entry that has shipped: add the next one. Rows hold the same columns as the
 * SQLite tables; times are ms since the epoch (BIGINT), values JSON text.
 */
export const ENRICH_POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    name: 'enrich_cache with its subjects (for erase), enrich_suppression',
    sql: (s) => `
    CREATE TABLE ${s}.enrich_cache (
      key TEXT PRIMARY KEY,
      value TEXT NOT NULL,
      stored_at BIGINT NOT NULL,
      expires_at BIGINT NOT NULL
    );
    CREATE INDEX enrich_cache_expiry ON ${s}.enrich_cache (expires_at);
    CREATE TABLE ${s}.enrich_cache_subjects (
      subject TEXT NOT NULL,
      key TEXT NOT NULL REFERENCES ${s}.enrich_cache (key) ON DELETE CASCADE,
      PRIMARY KEY (subject, key)
    );
    CREATE INDEX enrich_cache_subjects_key ON ${s}.enrich_cache_subjects (key);
    CREATE TABLE ${s}.enrich_suppression (
      hash TEXT PRIMARY KEY,
      added_at BIGINT NOT NULL
    );`,
  },
];

/**
 * Creates or upgrades the enrichment schema alone (what `svc migrate` runs for a deploy pipeline;
 * the stores also migrate when they open), then ends the pool it opened. Returns the versions.
 */
export async function migrateEnrichPostgres(
  options: EnrichPostgresOptions,
): Promise<PostgresMigrationOutcome> {
  const { pool, owned, migration } = await openEnrichPostgres(options, 'the PostgreSQL enrichment schema');
  if (owned) await pool.end();
  return migration;
}

/** An open, migrated enrichment database: the pool, whether to end it, the quoted schema. */
export interface OpenedEnrichPostgres {
  pool: PgPool;
  owned: boolean;
  /** `"svc_enrich"`: quoted, ready to splice before a table name. */
  schema: string;
  migration: PostgresMigrationOutcome;
}

/**
 * Opens the pool (or takes the caller's) and brings the schema to the newest version under an
 * advisory lock, so processes starting together create the tables once. Errors name `store`.
 */
export async function openEnrichPostgres(
  options: EnrichPostgresOptions,
  store: string,
): Promise<OpenedEnrichPostgres> {
  const schema = checkedPostgresSchema(options.schema, DEFAULT_ENRICH_SCHEMA);
  const { opened, migration } = await openMigratedPostgres(
    options,
    {
      store,
      database: 'the enrichment database',
      from: '@svc/enricher',
      loadPg: () => import('pg'),
      defaultPoolSize: 4,
    },
    {
      schema,
      migrations: ENRICH_POSTGRES_MIGRATIONS,
      table: 'enrich_schema_migrations',
      // Any constant shared by every process that migrates this schema (other stores' differ).
      lockKey: 0x3e_71c,
      versionOf: 'enrichment schema version',
      packageName: '@svc/enricher',
    },
  );
  return { pool: opened.pool, owned: opened.owned, schema: `"${schema}"`, migration };
}
