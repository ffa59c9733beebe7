// @svc/core/postgres: the PostgreSQL plumbing every store shares (see README, "PostgreSQL").
export {
  type PostgresMigration,
  type PostgresMigrationOutcome,
  type RunPostgresMigrationsOptions,
  runPostgresMigrations,
} from './migrate.js';
export { openMigratedPostgres } from './open-migrated.js';
export {
  checkedPostgresSchema,
  connectPostgresClient,
  type OpenedPostgresPool,
  openPostgresPool,
  type PgDriver,
  type PostgresPoolOptions,
  type PostgresStoreNames,
  postgresConnectError,
  redactedPostgresUrl,
} from './pool.js';
