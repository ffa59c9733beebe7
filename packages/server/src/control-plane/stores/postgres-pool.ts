import type { Pool } from 'pg';

/** How to reach the database: a URL (a pool is opened and closed by us) or a pool of the caller's. */
export interface PostgresConnectionOptions {
  /** `postgres://user:password@host:5432/database`; one of this and `pool` is required. */
  connectionString?: string;
  /** A `pg.Pool` the caller owns: used as it is and left open by `close()`. */
  pool?: Pool;
  /**
   * The schema holding the control-plane tables, created if missing: lowercase letters, digits
   * and `_`, starting with a letter or `_`, at most 63 characters.
   * @default 'svc_control'
   */
  schema?: string;
  /** Connections of the pool opened from `connectionString` (ignored with `pool`). @default 10 */
  poolSize?: number;
  /** Milliseconds to wait for a new connection before giving up (ignored with `pool`). @default 10000 */
  connectTimeoutMs?: number;
}

export const DEFAULT_CONTROL_PLANE_SCHEMA = 'svc_control';

const SCHEMA = /^[a-z_][a-z0-9_]{0,62}$/;

/** The schema name, checked: it is spliced into SQL (quoted), so only plain identifiers pass. */
export function checkedSchema(schema: string | undefined): string {
  const name = schema ?? DEFAULT_CONTROL_PLANE_SCHEMA;
  if (typeof name !== 'string' || !SCHEMA.test(name)) {
    throw new TypeError(
      `schema must be lowercase letters, digits and _ (starting with a letter or _, at most 63 characters), got ${JSON.stringify(name)}`,
    );
  }
  return name;
}

/** The URL without its password, for messages (a connection string's password must never be logged). */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(an unparsable connection string)';
  }
}

// Loaded on first use: apps on SQLite never need pg installed.
async function loadPg(): Promise<typeof import('pg')> {
  try {
    return await import('pg');
  } catch (error) {
    const cause = String((error as Error).message ?? error).split('\n')[0];
    throw new Error(
      `the PostgreSQL control-plane store needs pg (npm install pg@8) where @svc/server resolves it, or a pg.Pool passed as the \`pool\` option (${cause})`,
      { cause: error },
    );
  }
}

/** A pool to use and whether we opened it (and so must end it). */
export interface OpenedPool {
  pool: Pool;
  owned: boolean;
  /** What to name in errors: the redacted URL, or "the given pool". */
  where: string;
}

/** Opens a pool from the options (or takes the caller's), after checking them. */
export async function openPool(options: PostgresConnectionOptions): Promise<OpenedPool> {
  if (options.pool) return { pool: options.pool, owned: false, where: 'the given pg.Pool' };
  const url = options.connectionString;
  if (typeof url !== 'string' || url === '') {
    throw new TypeError(
      'the PostgreSQL control-plane store needs `connectionString` (postgres://…) or `pool`',
    );
  }
  const max = options.poolSize ?? 10;
  if (!Number.isInteger(max) || max < 1)
    throw new TypeError(`poolSize must be a positive integer, got ${max}`);
  const timeout = options.connectTimeoutMs ?? 10_000;
  if (!Number.isInteger(timeout) || timeout < 1) {
    throw new TypeError(`connectTimeoutMs must be a positive integer, got ${timeout}`);
  }
  const { Pool } = await loadPg();
  const pool = new Pool({ connectionString: url, max, connectionTimeoutMillis: timeout });
  // An idle connection the server drops emits 'error' on the pool, which would crash the process
  // if nobody listened; pg discards that connection and the next query opens a fresh one.
  pool.on('error', () => {});
  return { pool, owned: true, where: redactedUrl(url) };
}

/** An error from the first contact, naming the database (never its password) and the cause. */
export function connectError(where: string, error: unknown): Error {
  const cause = error as { message?: string; code?: string };
  const reason = cause.message || cause.code || String(error);
  return new Error(`cannot use the control-plane database at ${where}: ${reason}`, { cause: error });
}
