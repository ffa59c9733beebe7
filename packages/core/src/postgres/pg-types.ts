// The part of pg's API the stores use, declared here so that no declaration file of an @svc
// package imports `pg`: pg is an optional peer, and an app with `skipLibCheck: false` that never
// installs pg (or @types/pg) must still typecheck. pg's own `Pool`, `PoolClient` and module
// satisfy these structurally (checked against @types/pg in pg-types.test.ts): pass them as they are.

/** A row as pg returns it: column name to value. */
// biome-ignore lint/suspicious/noExplicitAny: pg's own row type (QueryResultRow); callers narrow it with query<R>
export type PgRow = { [column: string]: any };

/** What a query resolves to (pg's `QueryResult`, the fields the stores read). */
export interface PgQueryResult<R extends PgRow = PgRow> {
  rows: R[];
  /** Rows the statement touched; null for a statement that reports none. */
  rowCount: number | null;
}

/** A query as an object: `name` makes it a prepared statement, planned once per connection. */
export interface PgQueryConfig {
  text: string;
  values?: unknown[];
  name?: string;
}

/** Something queries run on: a pool or one of its clients. */
export interface PgQueryable {
  query<R extends PgRow = PgRow>(
    textOrConfig: string | PgQueryConfig,
    values?: unknown[],
  ): Promise<PgQueryResult<R>>;
}

/** A client checked out of a pool (pg's `PoolClient`). */
export interface PgPoolClient extends PgQueryable {
  /** Back to the pool; with an error (or `true`), the connection is destroyed instead. */
  release(error?: Error | boolean): void;
}

/** A pool of connections (pg's `Pool`). */
export interface PgPool extends PgQueryable {
  connect(): Promise<PgPoolClient>;
  end(): Promise<void>;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/** The options a store opens a pool with (a subset of pg's `PoolConfig`). */
export interface PgPoolConfig {
  connectionString: string;
  max: number;
  connectionTimeoutMillis: number;
}

/** The part of the `pg` module a store needs: what `await import('pg')` gives. */
export interface PgDriver {
  Pool: new (config: PgPoolConfig) => PgPool;
}
