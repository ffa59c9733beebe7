// @svc/core/postgres: the PostgreSQL plumbing every store shares (see README, "PostgreSQL").
export {
  type PostgresMigration,
  type PostgresMigrationOutcome,
  type RunPostgresMigrationsOptions,
  runPostgresMigrations,
} from './migrate.js';
export { openMigratedPostgres } from './open-migrated.js';
export type {
  PgDriver,
  PgPool,
  PgPoolClient,
  PgPoolConfig,
  PgQueryable,
  PgQueryConfig,
  PgQueryResult,
  PgRow,
} from './pg-types.js';
export {
  checkedPostgresSchema,
  connectPostgresClient,
  type OpenedPostgresPool,
  openPostgresPool,
  type PostgresPoolOptions,
  type PostgresStoreNames,
  postgresConnectError,
  redactedPostgresUrl,
} from './pool.js';
