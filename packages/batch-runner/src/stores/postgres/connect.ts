import { createHash } from 'node:crypto';
import {
  checkedPostgresSchema,
  connectPostgresClient,
  type OpenedPostgresPool,
  openPostgresPool,
  type PgPoolClient,
  type PgQueryable,
  type PgQueryResult,
  type PgRow,
  type PostgresPoolOptions,
  type PostgresStoreNames,
} from '@svc/core/postgres';

/** Options of the Postgres store: how it reaches its database, and where its tables live. */
export interface PostgresStoreOptions extends PostgresPoolOptions {
  /**
   * The schema holding the store's tables, created if missing: lowercase letters, digits and
   * `_`, starting with a letter or `_`, at most 63 characters.
   * @default 'svc_batch'
   */
  schema?: string;
  /**
   * Bring the schema up to date when the store opens. `false` for a deployment whose app role
   * may not change the schema: `svc migrate` (or migratePostgresStore) runs with an owner role
   * beforehand, and the store refuses to open on a schema that is not at its version.
   * @default true
   */
  migrate?: boolean;
}

export const DEFAULT_BATCH_SCHEMA = 'svc_batch';

const NAMES: PostgresStoreNames = {
  store: 'the PostgreSQL batch store',
  database: 'the batch job database',
  from: '@svc/batch-runner',
  loadPg: () => import('pg'),
};

/** The schema name (default `svc_batch`), checked. */
export const checkedSchema = (schema: string | undefined): string =>
  checkedPostgresSchema(schema, DEFAULT_BATCH_SCHEMA);

/** Opens the batch store's pool from the options (or takes the caller's), after checking them. */
export const openPool = (options: PostgresStoreOptions): Promise<OpenedPostgresPool> =>
  openPostgresPool(options, NAMES);

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
  opened: OpenedPostgresPool,
  work: (client: PgPoolClient) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await connectPostgresClient(opened);
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
  return <R extends PgRow = PgRow>(
    db: PgQueryable,
    text: string,
    values: unknown[],
  ): Promise<PgQueryResult<R>> => {
    let name = names.get(text);
    if (name === undefined) {
      name = `svc_batch_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
      names.set(text, name);
    }
    return db.query<R>({ name, text, values });
  };
}
