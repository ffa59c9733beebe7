import type { Pool, PoolClient } from 'pg';
import { checkedSchema, connectError, openPool, type PostgresConnectionOptions } from './postgres-pool.js';

/**
 * The Postgres schema, one entry per version (the `schema_migrations` table lists the versions
 * applied). Never edit an entry that has shipped: add the next one. `s` is the quoted schema.
 * Text keys use the "C" collation so ids and endpoints sort byte-wise, as in SQLite and memory,
 * whatever the database's locale.
 */
export const POSTGRES_MIGRATIONS: readonly ((s: string) => string)[] = [
  // 1: accounts, plans, keys and tokens (hashes), sealed webhook secrets, usage (per month with
  // its totals, and per day).
  (s) => `
  CREATE TABLE ${s}.plans (
    id TEXT COLLATE "C" PRIMARY KEY, name TEXT NOT NULL, rate_per_second DOUBLE PRECISION NOT NULL,
    burst DOUBLE PRECISION NOT NULL, monthly_allowance BIGINT, endpoints JSONB
  );
  CREATE TABLE ${s}.accounts (
    id TEXT COLLATE "C" PRIMARY KEY, name TEXT NOT NULL, plan_id TEXT NOT NULL,
    created_at BIGINT NOT NULL, disabled_at BIGINT
  );
  CREATE INDEX accounts_created ON ${s}.accounts (created_at, id);
  CREATE TABLE ${s}.api_keys (
    id TEXT COLLATE "C" PRIMARY KEY, account_id TEXT COLLATE "C" NOT NULL,
    environment TEXT NOT NULL CHECK (environment IN ('test', 'live')), name TEXT,
    hash TEXT NOT NULL UNIQUE, last4 TEXT NOT NULL, created_at BIGINT NOT NULL, last_used_at BIGINT,
    expires_at BIGINT, revoked_at BIGINT, rotated_from TEXT
  );
  CREATE INDEX api_keys_account ON ${s}.api_keys (account_id, created_at, id);
  CREATE TABLE ${s}.tokens (
    id TEXT COLLATE "C" PRIMARY KEY, account_id TEXT NOT NULL, key_id TEXT NOT NULL,
    environment TEXT NOT NULL CHECK (environment IN ('test', 'live')), hash TEXT NOT NULL UNIQUE,
    scopes JSONB, created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL
  );
  CREATE INDEX tokens_expiry ON ${s}.tokens (expires_at);
  CREATE TABLE ${s}.webhook_secrets (
    id TEXT COLLATE "C" PRIMARY KEY, account_id TEXT COLLATE "C" NOT NULL, sealed TEXT NOT NULL,
    prefix TEXT NOT NULL, created_at BIGINT NOT NULL, expires_at BIGINT
  );
  CREATE INDEX webhook_secrets_account ON ${s}.webhook_secrets (account_id, created_at, id);
  CREATE TABLE ${s}.usage (
    account_id TEXT COLLATE "C" NOT NULL, month TEXT COLLATE "C" NOT NULL, endpoint TEXT COLLATE "C" NOT NULL,
    calls BIGINT NOT NULL, units BIGINT NOT NULL,
    PRIMARY KEY (account_id, month, endpoint)
  );
  -- Usage per day as well (the dashboard's chart), for calls recorded with their day.
  CREATE TABLE ${s}.usage_daily (
    account_id TEXT COLLATE "C" NOT NULL, day TEXT COLLATE "C" NOT NULL, endpoint TEXT COLLATE "C" NOT NULL,
    calls BIGINT NOT NULL, units BIGINT NOT NULL,
    PRIMARY KEY (account_id, day, endpoint)
  );
  -- The month's total per account, kept by the same statement that adds a usage line: the quota
  -- check on every request is one primary-key read, and its row lock orders concurrent additions.
  CREATE TABLE ${s}.usage_months (
    account_id TEXT COLLATE "C" NOT NULL, month TEXT COLLATE "C" NOT NULL, units BIGINT NOT NULL,
    PRIMARY KEY (account_id, month)
  );
  `,
  // 2: whether a plan bills company-enrichment misses (DESIGN §7: not by default), and the usage
  // credits applied, by key, so a credit is applied once.
  (s) => `
  ALTER TABLE ${s}.plans ADD COLUMN bill_company_misses BOOLEAN NOT NULL DEFAULT false;
  CREATE TABLE ${s}.usage_credits (
    account_id TEXT COLLATE "C" NOT NULL, key TEXT COLLATE "C" NOT NULL, endpoint TEXT NOT NULL,
    month TEXT NOT NULL, day TEXT, units BIGINT NOT NULL,
    PRIMARY KEY (account_id, key)
  );
  `,
];

/** Options of {@link migratePostgresControlPlane}: where, and in which schema. */
export type MigratePostgresControlPlaneOptions = Pick<
  PostgresConnectionOptions,
  'connectionString' | 'pool' | 'schema' | 'connectTimeoutMs'
>;

/** What a migration did: the schema's version before and after. */
export interface PostgresMigrationResult {
  schema: string;
  fromVersion: number;
  toVersion: number;
}

// Any constant shared by every process that migrates this store; the second key is the schema's
// hash, so different schemas migrate independently.
const LOCK_CLASS = 0x5_3c_70;

/**
 * Brings the schema to the newest version in one transaction, under an advisory lock, so two
 * processes starting at once apply each version once (the second waits, then finds nothing to
 * do). A schema written by a newer @svc/server is refused with both versions named.
 */
export async function migrateOnClient(client: PoolClient, schema: string): Promise<PostgresMigrationResult> {
  const s = `"${schema}"`;
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_CLASS, schema]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${s}.schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ version: number | null }>(
      `SELECT max(version) AS version FROM ${s}.schema_migrations`,
    );
    const fromVersion = rows[0]?.version ?? 0;
    if (fromVersion > POSTGRES_MIGRATIONS.length) {
      throw new Error(
        `schema ${schema} has control-plane schema version ${fromVersion}, newer than this @svc/server knows (${POSTGRES_MIGRATIONS.length}); upgrade @svc/server`,
      );
    }
    for (let next = fromVersion; next < POSTGRES_MIGRATIONS.length; next++) {
      await client.query((POSTGRES_MIGRATIONS[next] as (s: string) => string)(s));
      await client.query(`INSERT INTO ${s}.schema_migrations (version) VALUES ($1)`, [next + 1]);
    }
    await client.query('COMMIT');
    return { schema, fromVersion, toVersion: POSTGRES_MIGRATIONS.length };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

/** Connects a client, naming the database when that fails. */
export async function connectClient(pool: Pool, where: string): Promise<PoolClient> {
  try {
    return await pool.connect();
  } catch (error) {
    throw connectError(where, error);
  }
}

/**
 * Creates or upgrades the control-plane schema (what `svc migrate` and every start of the
 * Postgres store run); safe to run from several processes at once.
 */
export async function migratePostgresControlPlane(
  options: MigratePostgresControlPlaneOptions,
): Promise<PostgresMigrationResult> {
  const schema = checkedSchema(options.schema);
  const opened = await openPool({ ...options, poolSize: 1 });
  try {
    const client = await connectClient(opened.pool, opened.where);
    try {
      return await migrateOnClient(client, schema);
    } finally {
      client.release();
    }
  } finally {
    if (opened.owned) await opened.pool.end();
  }
}
