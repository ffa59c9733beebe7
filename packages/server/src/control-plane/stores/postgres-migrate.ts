import {
  connectPostgresClient,
  type PgQueryable,
  type PostgresMigration,
  runPostgresMigrations,
} from '@svc/core/postgres';
import { checkedSchema, openPool, type PostgresConnectionOptions } from './postgres-pool.js';

/**
 * The Postgres schema, one entry per version (the `schema_migrations` table lists the versions
 * applied). Never edit an entry that has shipped: add the next one. `s` is the quoted schema.
 * Text keys use the "C" collation so ids and endpoints sort byte-wise, as in SQLite and memory,
 * whatever the database's locale.
 */
export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    name: 'accounts, plans, keys and tokens (hashes), sealed webhook secrets, usage per month (with its totals) and per day',
    sql: (s) => `
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
  },
  {
    // DESIGN §7: misses are not billed by default; a credit is applied once per key.
    name: 'whether a plan bills company-enrichment misses, and the usage credits applied',
    sql: (s) => `
  ALTER TABLE ${s}.plans ADD COLUMN bill_company_misses BOOLEAN NOT NULL DEFAULT false;
  CREATE TABLE ${s}.usage_credits (
    account_id TEXT COLLATE "C" NOT NULL, key TEXT COLLATE "C" NOT NULL, endpoint TEXT NOT NULL,
    month TEXT NOT NULL, day TEXT, units BIGINT NOT NULL,
    PRIMARY KEY (account_id, key)
  );
  `,
  },
  {
    // Issue 24: revoking a key revokes the keys made with it.
    name: 'the key that made each key over the API',
    sql: (s) => `
  ALTER TABLE ${s}.api_keys ADD COLUMN created_by TEXT;
  CREATE INDEX api_keys_created_by ON ${s}.api_keys (account_id, created_by);
  `,
  },
];

/** Options of {@link migratePostgresControlPlane}: where, and in which schema. */
export type MigratePostgresControlPlaneOptions = Pick<
  PostgresConnectionOptions,
  'connectionString' | 'pool' | 'schema' | 'connectTimeoutMs' | 'driver'
>;

/** What a migration did: the schema's version before and after. */
export interface PostgresMigrationResult {
  schema: string;
  fromVersion: number;
  toVersion: number;
}

/**
 * Brings the schema to the newest version (see runPostgresMigrations in @svc/core/postgres). A
 * schema written by a newer @svc/server is refused with both versions named.
 */
export async function migrateOnClient(client: PgQueryable, schema: string): Promise<PostgresMigrationResult> {
  const { fromVersion, toVersion } = await runPostgresMigrations(client, {
    schema,
    migrations: POSTGRES_MIGRATIONS,
    // Created before versions had names: it keeps only the numbers.
    table: 'schema_migrations',
    recordNames: false,
    // Any constant shared by every process that migrates this store (the batch store's differs).
    lockKey: 0x5_3c_70,
    versionOf: 'control-plane schema version',
    packageName: '@svc/server',
  });
  return { schema, fromVersion, toVersion };
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
    const client = await connectPostgresClient(opened);
    try {
      return await migrateOnClient(client, schema);
    } finally {
      client.release();
    }
  } finally {
    if (opened.owned) await opened.pool.end();
  }
}
