import {
  checkedPostgresSchema,
  type OpenedPostgresPool,
  openPostgresPool,
  type PostgresPoolOptions,
} from '@svc/core/postgres';

/**
 * How to reach the database: a URL (a pool is opened and closed by us) or a pool of the
 * caller's, as for every PostgreSQL store (the pool plumbing is @svc/core/postgres).
 */
export interface PostgresConnectionOptions extends PostgresPoolOptions {
  /**
   * The schema holding the control-plane tables, created if missing: lowercase letters, digits
   * and `_`, starting with a letter or `_`, at most 63 characters.
   * @default 'svc_control'
   */
  schema?: string;
}

export const DEFAULT_CONTROL_PLANE_SCHEMA = 'svc_control';

/** The schema name (default `svc_control`), checked: it is spliced into SQL. */
export const checkedSchema = (schema: string | undefined): string =>
  checkedPostgresSchema(schema, DEFAULT_CONTROL_PLANE_SCHEMA);

/** Opens the control plane's pool from the options (or takes the caller's), after checking them. */
export const openPool = (options: PostgresConnectionOptions): Promise<OpenedPostgresPool> =>
  openPostgresPool(options, {
    store: 'the PostgreSQL control-plane store',
    database: 'the control-plane database',
    from: '@svc/server',
    loadPg: () => import('pg'),
  });
