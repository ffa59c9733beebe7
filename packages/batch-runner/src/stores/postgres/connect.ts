import { createHash } from 'node:crypto';
import { ServiceError } from '@svc/core';
import type { Pool, PoolClient, QueryResult, QueryResultRow } from 'pg';

/** Options of the Postgres store: how it reaches its database, and where its tables live. */
export interface PostgresStoreOptions {
  /**
   * `postgres://user:password@host:5432/database` (or `postgresql://`); one of this and `pool`
   * is required. A pool is opened from it and ended by `close()`.
   */
  connectionString?: string;
  /** A `pg.Pool` the caller owns: used as it is and left open by `close()`. */
  pool?: Pool;
  /**
   * The schema holding the store's tables, created if missing: lowercase letters, digits and
   * `_`, starting with a letter or `_`, at most 63 characters.
   * @default 'svc_batch'
   */
  schema?: string;
  /** Connections of the pool opened from `connectionString` (ignored with `pool`). @default 10 */
  poolSize?: number;
  /** Milliseconds to wait for a new connection before giving up (ignored with `pool`). @default 10000 */
  connectTimeoutMs?: number;
  /**
   * The `pg` module, for an app that depends on pg itself: pass `await import('pg')`. Needed
   * where this package cannot see the app's copy (an optional peer resolves from this package's
   * folder; a global npm install puts the app's pg under the app). Ignored with `pool`.
   * @default the pg this package resolves, loaded on first use
   */
  driver?: { Pool: typeof Pool };
  /**
   * Bring the schema up to date when the store opens. `false` for a deployment whose app role
   * may not change the schema: `svc migrate` (or migratePostgresStore) runs with an owner role
   * beforehand, and the store refuses to open on a schema that is not at its version.
   * @default true
   */
  migrate?: boolean;
}

export const DEFAULT_BATCH_SCHEMA = 'svc_batch';

const SCHEMA = /^[a-z_][a-z0-9_]{0,62}$/;

/** The schema name, checked: it is spliced into SQL (quoted), so only plain identifiers pass. */
export function checkedSchema(schema: string | undefined): string {
  const name = schema ?? DEFAULT_BATCH_SCHEMA;
  if (typeof name !== 'string' || !SCHEMA.test(name)) {
    throw new TypeError(
      `schema must be lowercase letters, digits and _ (starting with a letter or _, at most 63 characters), got ${JSON.stringify(name)}`,
    );
  }
  return name;
}

/** The URL without its password, for messages: a connection string's password is never shown. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(an unparsable connection string)';
  }
}

// Loaded on first use: apps on memory or SQLite never need pg installed.
async function loadPg(): Promise<{ Pool: typeof Pool }> {
  try {
    return await import('pg');
  } catch (error) {
    const cause = String((error as Error).message ?? error).split('\n')[0];
    throw new Error(
      `the PostgreSQL batch store needs pg (npm install pg@8) where @svc/batch-runner resolves it, or passed as the \`driver\` option, or a pg.Pool as \`pool\` (${cause})`,
      { cause: error },
    );
  }
}

/** A pool to use, whether we opened it (and so must end it), and what to call it in errors. */
export interface OpenedPool {
  pool: Pool;
  owned: boolean;
  where: string;
}

/** Opens a pool from the options (or takes the caller's), after checking them. */
export async function openPool(options: PostgresStoreOptions): Promise<OpenedPool> {
  if (options.pool) return { pool: options.pool, owned: false, where: 'the given pg.Pool' };
  const url = options.connectionString;
  if (typeof url !== 'string' || url === '') {
    throw new TypeError('the PostgreSQL batch store needs `connectionString` (postgres://…) or `pool`');
  }
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    throw new TypeError(
      'connectionString is not a URL: expected postgres://user:password@host:5432/database',
    );
  }
  if (protocol !== 'postgres:' && protocol !== 'postgresql:') {
    throw new TypeError(
      `connectionString must be a postgres:// or postgresql:// URL, got one starting ${JSON.stringify(protocol)}`,
    );
  }
  const max = options.poolSize ?? 10;
  if (!Number.isInteger(max) || max < 1)
    throw new TypeError(`poolSize must be a positive integer, got ${max}`);
  const timeout = options.connectTimeoutMs ?? 10_000;
  if (!Number.isInteger(timeout) || timeout < 1) {
    throw new TypeError(`connectTimeoutMs must be a positive integer, got ${timeout}`);
  }
  const { Pool } = options.driver ?? (await loadPg());
  const pool = new Pool({ connectionString: url, max, connectionTimeoutMillis: timeout });
  // An idle connection the server drops emits 'error' on the pool, which would crash the process
  // if nobody listened; pg discards that connection and the next query opens a fresh one.
  pool.on('error', () => {});
  return { pool, owned: true, where: redactedUrl(url) };
}

/** The first contact failed: name the database (never its password) and the cause. */
export function connectError(where: string, error: unknown): ServiceError {
  const cause = error as { message?: string; code?: string; errors?: Array<{ message?: string }> };
  // A host with several addresses (localhost: ::1 and 127.0.0.1) fails with an AggregateError
  // whose own message is empty.
  const reason =
    cause.message || cause.errors?.map((inner) => inner.message).join('; ') || cause.code || String(error);
  return new ServiceError('internal_error', `cannot use the batch job database at ${where}: ${reason}`, {
    cause: error,
  });
}

/** A client from the pool, naming the database when connecting fails. */
export async function connectClient(opened: OpenedPool): Promise<PoolClient> {
  try {
    return await opened.pool.connect();
  } catch (error) {
    throw connectError(opened.where, error);
  }
}

/** Thrown inside {@link transaction} to roll back everything and resolve with `value`. */
export class Rollback<T> {
  constructor(readonly value: T) {}
}

// Postgres reports these when two transactions collide; the whole transaction may be retried.
const RETRYABLE = new Set(['40P01', '40001']);

/**
 * Runs `work` in one transaction on one client: committed when it resolves, rolled back when it
 * throws (resolving with the value of a thrown {@link Rollback}). A deadlock or serialization failure (which rolled everything back) is retried a few times.
 */
export async function transaction<T>(
  opened: OpenedPool,
  work: (client: PoolClient) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await connectClient(opened);
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const value = await work(client);
      await client.query('COMMIT');
      return value;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => {
        broken = rollbackError;
      });
      if (error instanceof Rollback) return error.value as T;
      const code = (error as { code?: string }).code;
      if (!(code && RETRYABLE.has(code) && attempt < 4)) throw error;
    } finally {
      // A client whose rollback failed is in an unknown state: destroyed, not reused.
      client.release(broken);
    }
  }
}

/**
 * A query function that runs every statement as a named prepared statement: Postgres parses and
 * plans it once per connection, not on every call (planning the claim statement took longer
 * than running it). The name is a hash of the text, so stores of different schemas sharing a
 * pool never reuse a name for another statement.
 */
export function preparedQuery() {
  const names = new Map<string, string>();
  return <R extends QueryResultRow = QueryResultRow>(
    db: Pool | PoolClient,
    text: string,
    values: unknown[],
  ): Promise<QueryResult<R>> => {
    let name = names.get(text);
    if (name === undefined) {
      name = `svc_batch_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
      names.set(text, name);
    }
    return db.query<R>({ name, text, values });
  };
}
