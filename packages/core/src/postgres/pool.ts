import { importOptionalPeer } from '../optional-peer.js';
import { ServiceError } from '../service-error.js';
import { urlWithoutPassword } from '../url-without-password.js';
import type { PgDriver, PgPool, PgPoolClient } from './pg-types.js';

/**
 * How a Postgres-backed store reaches its database: a URL (a pool is opened from it, and ended
 * by the store) or a pool of the caller's. The options of every PostgreSQL store (batch store,
 * control plane, result cache, enrichment stores) extend it.
 */
export interface PostgresPoolOptions {
  /**
   * `postgres://user:password@host:5432/database` (or `postgresql://`); one of this and `pool`
   * is required. A pool is opened from it and ended by `close()`.
   */
  connectionString?: string;
  /** A `pg.Pool` the caller owns: used as it is and left open by `close()`. */
  pool?: PgPool;
  /** Connections of the pool opened from `connectionString` (ignored with `pool`). @default 10 */
  poolSize?: number;
  /** Milliseconds to wait for a new connection before giving up (ignored with `pool`). @default 10000 */
  connectTimeoutMs?: number;
  /**
   * The `pg` module, for an app that depends on pg itself: pass `await import('pg')`. Needed
   * where this package cannot see the app's copy (an optional peer resolves from this package's
   * folder; a global npm install puts the app's pg under the app). Ignored with `pool`.
   * @default the pg the store's package resolves (see {@link PostgresStoreNames.loadPg}), loaded on first use
   */
  driver?: PgDriver;
}

/**
 * Which store opens the pool: what errors call it, and how its package loads pg.
 */
export interface PostgresStoreNames {
  /** The store, in errors about its options: e.g. `'the PostgreSQL batch store'`. */
  store: string;
  /** Its database, in errors connecting: e.g. `'the batch job database'`. */
  database: string;
  /**
   * The store's package, which has pg as an optional peer: e.g. `'@svc/batch-runner'` (named in
   * the error when pg is missing).
   */
  from: string;
  /**
   * That package's own `() => import('pg')`: an import resolves from the file that writes it, so
   * pg is looked up beside the package that uses it (as every optional peer, see
   * `importOptionalPeer`), not beside @svc/core. Called only when no `driver` or `pool` is given.
   */
  loadPg: () => Promise<PgDriver>;
  /**
   * Connections of a pool opened from a URL when the options give no `poolSize`.
   * @default 10
   */
  defaultPoolSize?: number;
}

/** A pool to use, whether we opened it (and so must end it), and what to call it in errors. */
export interface OpenedPostgresPool {
  pool: PgPool;
  owned: boolean;
  /** The database in messages: the URL without its password, or "the given pg.Pool". */
  where: string;
  /** What the database is, in errors connecting (from {@link PostgresStoreNames}). */
  database: string;
}

const SCHEMA = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The schema name (`fallback` when none is given), checked: it is spliced into SQL (quoted), so
 * only plain identifiers pass.
 */
export function checkedPostgresSchema(schema: string | undefined, fallback: string): string {
  const name = schema ?? fallback;
  if (typeof name !== 'string' || !SCHEMA.test(name)) {
    throw new TypeError(
      `schema must be lowercase letters, digits and _ (starting with a letter or _, at most 63 characters), got ${JSON.stringify(name)}`,
    );
  }
  return name;
}

/** The URL without its password, for messages: a connection string's password is never shown. */
export function redactedPostgresUrl(url: string): string {
  return urlWithoutPassword(url, '(an unparsable connection string)');
}

// Loaded on first use: apps on memory or SQLite never need pg installed.
function loadPg(names: PostgresStoreNames): Promise<PgDriver> {
  return importOptionalPeer(names.loadPg, {
    user: names.store,
    needs: 'pg',
    install: 'pg@8',
    from: names.from,
    otherwise: 'passed as the `driver` option, or a pg.Pool as `pool`',
  });
}

/**
 * Opens a pool from the options (or takes the caller's), after checking them; errors name the
 * store as `names.store` says.
 */
export async function openPostgresPool(
  options: PostgresPoolOptions,
  names: PostgresStoreNames,
): Promise<OpenedPostgresPool> {
  const { database } = names;
  if (options.pool) return { pool: options.pool, owned: false, where: 'the given pg.Pool', database };
  const url = options.connectionString;
  if (typeof url !== 'string' || url === '') {
    throw new TypeError(`${names.store} needs \`connectionString\` (postgres://…) or \`pool\``);
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
  const max = options.poolSize ?? names.defaultPoolSize ?? 10;
  if (!Number.isInteger(max) || max < 1)
    throw new TypeError(`poolSize must be a positive integer, got ${max}`);
  const timeout = options.connectTimeoutMs ?? 10_000;
  if (!Number.isInteger(timeout) || timeout < 1) {
    throw new TypeError(`connectTimeoutMs must be a positive integer, got ${timeout}`);
  }
  const { Pool } = options.driver ?? (await loadPg(names));
  const pool = new Pool({ connectionString: url, max, connectionTimeoutMillis: timeout });
  // An idle connection the server drops emits 'error' on the pool, which would crash the process
  // if nobody listened; pg discards that connection and the next query opens a fresh one.
  pool.on('error', () => {});
  return { pool, owned: true, where: redactedPostgresUrl(url), database };
}

/** The first contact failed: name the database (never its password) and the cause. */
export function postgresConnectError(opened: OpenedPostgresPool, error: unknown): ServiceError {
  const cause = error as { message?: string; code?: string; errors?: Array<{ message?: string }> };
  // A host with several addresses (localhost: ::1 and 127.0.0.1) fails with an AggregateError
  // whose own message is empty.
  const reason =
    cause.message || cause.errors?.map((inner) => inner.message).join('; ') || cause.code || String(error);
  return new ServiceError('internal_error', `cannot use ${opened.database} at ${opened.where}: ${reason}`, {
    cause: error,
  });
}

/** A client from the pool, naming the database when connecting fails. */
export async function connectPostgresClient(opened: OpenedPostgresPool): Promise<PgPoolClient> {
  try {
    return await opened.pool.connect();
  } catch (error) {
    throw postgresConnectError(opened, error);
  }
}
