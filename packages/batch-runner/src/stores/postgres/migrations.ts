import { ServiceError } from '@svc/core';
import {
  connectPostgresClient,
  type OpenedPostgresPool,
  type PgQueryable,
  type PostgresMigration,
  type PostgresMigrationOutcome,
  runPostgresMigrations,
} from '@svc/core/postgres';
import { checkedSchema, openPool, type PostgresStoreOptions } from './connect.js';

/**
 * The schema, one entry per version (`batch_schema_migrations` lists those applied). Never edit
 * an entry that has shipped: add the next one. Ids use the "C" collation so they sort byte-wise,
 * as in SQLite and memory, whatever the database's locale. JSON columns are `json`, not `jsonb`:
 * `json` keeps the text as written, so results and counts keep their key order (exports and
 * API answers look the same as on SQLite).
 */
export const POSTGRES_STORE_MIGRATIONS: readonly PostgresMigration[] = [
  {
    name: 'jobs, chunks, results and the webhook outbox',
    sql: (s) => `
    CREATE TABLE ${s}.jobs (
      id TEXT COLLATE "C" PRIMARY KEY, account_id TEXT COLLATE "C", sandbox BOOLEAN NOT NULL DEFAULT false,
      type TEXT NOT NULL, status TEXT NOT NULL, total INTEGER NOT NULL,
      processed INTEGER NOT NULL DEFAULT 0, failed INTEGER NOT NULL DEFAULT 0, counts JSON NOT NULL DEFAULT '{}',
      created_at TIMESTAMPTZ NOT NULL, started_at TIMESTAMPTZ, completed_at TIMESTAMPTZ, webhook_url TEXT,
      idempotency_key TEXT, request_hash TEXT, error JSON, chunks_left INTEGER NOT NULL,
      abandoned INTEGER NOT NULL DEFAULT 0, abandon_reason TEXT
    );
    -- Keys are unique per owning account; an expression, because UNIQUE over a NULL account
    -- would let a key repeat among jobs without one.
    CREATE UNIQUE INDEX jobs_idempotency ON ${s}.jobs ((coalesce(account_id, '')), idempotency_key)
      WHERE idempotency_key IS NOT NULL;
    CREATE INDEX jobs_account ON ${s}.jobs (account_id, id);
    -- A chunk keeps its records as one JSON array: a 50,000-record job is 200 rows, not 50,000,
    -- and a claim reads one row. Large arrays are TOASTed, so lease updates do not copy them.
    CREATE TABLE ${s}.chunks (
      job_id TEXT COLLATE "C" NOT NULL REFERENCES ${s}.jobs (id) ON DELETE CASCADE,
      chunk INTEGER NOT NULL, first_index INTEGER NOT NULL, inputs JSON NOT NULL,
      state TEXT NOT NULL, owner TEXT, lease_until BIGINT NOT NULL DEFAULT 0,
      available_at BIGINT NOT NULL DEFAULT 0, attempts INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (job_id, chunk)
    );
    -- Only chunks still to do are indexed for claims: finished jobs cost claims nothing.
    CREATE INDEX chunks_live ON ${s}.chunks (job_id, chunk) WHERE state IN ('pending', 'leased');
    -- One row per record, written in bulk by a chunk's commit. No foreign key: the commit
    -- already holds the chunk, and a check per row would double the work of the hottest insert.
    CREATE TABLE ${s}.results (
      job_id TEXT COLLATE "C" NOT NULL, idx INTEGER NOT NULL, result JSON NOT NULL,
      PRIMARY KEY (job_id, idx)
    );
    CREATE TABLE ${s}.outbox (
      event_id TEXT COLLATE "C" PRIMARY KEY,
      job_id TEXT COLLATE "C" NOT NULL REFERENCES ${s}.jobs (id) ON DELETE CASCADE,
      type TEXT NOT NULL, url TEXT NOT NULL, created BIGINT NOT NULL, state TEXT NOT NULL,
      next_attempt_at BIGINT NOT NULL, first_attempt_at BIGINT, owner TEXT,
      lease_until BIGINT NOT NULL DEFAULT 0, attempt_count INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX outbox_due ON ${s}.outbox (next_attempt_at) WHERE state = 'pending';
    CREATE INDEX outbox_job ON ${s}.outbox (job_id, created, event_id);
    CREATE TABLE ${s}.delivery_attempts (
      event_id TEXT COLLATE "C" NOT NULL REFERENCES ${s}.outbox (event_id) ON DELETE CASCADE,
      seq INTEGER NOT NULL, at BIGINT NOT NULL, status INTEGER, latency_ms DOUBLE PRECISION NOT NULL,
      error TEXT, trigger TEXT,
      PRIMARY KEY (event_id, seq)
    );
    `,
  },
  {
    // An attempt is logged before its request goes out and completed with its outcome, so a
    // crash in between leaves it in the log (at-least-once delivery).
    name: 'delivery attempts begun before they are sent',
    sql: (s) => `
    ALTER TABLE ${s}.delivery_attempts ADD COLUMN in_progress BOOLEAN NOT NULL DEFAULT false;
    `,
  },
  {
    // The retention sweeper finds finished jobs by kind and age without reading the others.
    name: 'finished jobs by kind and age, for retention',
    sql: (s) => `
    CREATE INDEX jobs_finished ON ${s}.jobs (sandbox, completed_at)
      WHERE status IN ('completed', 'failed', 'cancelled');
    `,
  },
];

/** Options of {@link migratePostgresStore}: where, and in which schema. */
export type MigratePostgresStoreOptions = Pick<
  PostgresStoreOptions,
  'connectionString' | 'pool' | 'schema' | 'connectTimeoutMs' | 'driver'
>;

/** What a migration did: the schema's version before and after, and the versions applied. */
export type PostgresStoreMigrationResult = PostgresMigrationOutcome;

// The table listing the versions applied, in the store's schema.
const TABLE = 'batch_schema_migrations';

/**
 * Brings the schema to the newest version (see runPostgresMigrations). A schema written by a
 * newer @svc/batch-runner is refused with both versions named.
 */
export function migrateOnClient(client: PgQueryable, schema: string): Promise<PostgresStoreMigrationResult> {
  return runPostgresMigrations(client, {
    schema,
    migrations: POSTGRES_STORE_MIGRATIONS,
    table: TABLE,
    // Any constant shared by every process that migrates this store (the control plane's differs).
    lockKey: 0x5_ba_7c,
    versionOf: 'batch store version',
    packageName: '@svc/batch-runner',
  });
}

/**
 * Migrates (or, with `migrate` false, only checks the version of) the schema on one client of
 * the pool; a database error names the database and the schema.
 */
export async function prepareSchema(
  opened: OpenedPostgresPool,
  schema: string,
  migrate: boolean,
): Promise<PostgresStoreMigrationResult> {
  const client = await connectPostgresClient(opened);
  try {
    if (migrate) return await migrateOnClient(client, schema);
    const { rows } = await client.query<{ version: number | null }>(
      `SELECT CASE WHEN to_regclass($1) IS NULL THEN 0 END AS version`,
      [`"${schema}".${TABLE}`],
    );
    let version = rows[0]?.version ?? null;
    if (version === null) {
      const applied = await client.query<{ version: number | null }>(
        `SELECT max(version) AS version FROM "${schema}".${TABLE}`,
      );
      version = applied.rows[0]?.version ?? 0;
    }
    const newest = POSTGRES_STORE_MIGRATIONS.length;
    if (version !== newest) {
      throw new ServiceError(
        'internal_error',
        `the batch store schema "${schema}" at ${opened.where} is at version ${version}, this @svc/batch-runner needs ${newest}: run svc migrate (or migratePostgresStore)`,
      );
    }
    return { schema, fromVersion: version, toVersion: version, applied: [] };
  } catch (error) {
    if (ServiceError.is(error)) throw error;
    const reason = (error as Error).message || String(error);
    throw new ServiceError(
      'internal_error',
      `cannot ${migrate ? 'migrate' : 'read'} the batch store schema "${schema}" at ${opened.where}: ${reason}`,
      { cause: error },
    );
  } finally {
    client.release();
  }
}

/**
 * Creates or upgrades the batch store's schema (what `svc migrate` and every start of
 * createPostgresStore run); safe to run from several processes at once.
 */
export async function migratePostgresStore(
  options: MigratePostgresStoreOptions,
): Promise<PostgresStoreMigrationResult> {
  const schema = checkedSchema(options.schema);
  const opened = await openPool({ ...options, poolSize: 1 });
  try {
    return await prepareSchema(opened, schema, true);
  } finally {
    if (opened.owned) await opened.pool.end();
  }
}
