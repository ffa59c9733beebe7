import {
  type PostgresMigrationOutcome,
  type RunPostgresMigrationsOptions,
  runPostgresMigrations,
} from './migrate.js';
import {
  connectPostgresClient,
  type OpenedPostgresPool,
  openPostgresPool,
  type PostgresPoolOptions,
  type PostgresStoreNames,
} from './pool.js';

/**
 * Opens a store's pool (`openPostgresPool`) and brings its schema to the newest version
 * (`runPostgresMigrations`, under its advisory lock) on one client; a pool opened here is ended
 * again when the migration fails. What every PostgreSQL store does first.
 */
export async function openMigratedPostgres(
  options: PostgresPoolOptions,
  names: PostgresStoreNames,
  migrations: RunPostgresMigrationsOptions,
): Promise<{ opened: OpenedPostgresPool; migration: PostgresMigrationOutcome }> {
  const opened = await openPostgresPool(options, names);
  try {
    const client = await connectPostgresClient(opened);
    try {
      return { opened, migration: await runPostgresMigrations(client, migrations) };
    } finally {
      client.release();
    }
  } catch (error) {
    if (opened.owned) await opened.pool.end().catch(() => {});
    throw error;
  }
}
