import type { SqliteDriver } from '@svc/core';
import { importOptionalPeer } from '@svc/core';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * better-sqlite3's `Database` class for this package's SQLite files (the cache, the dataset
 * index): the `driver` option when the app passed one, else the optional peer this package
 * resolves, loaded on first use with an error that says how to install it (`user` names who
 * needed it).
 */
export async function sqliteDatabaseClass(
  user: string,
  driver: SqliteDriver | undefined,
): Promise<typeof BetterSqlite3> {
  if (driver != null) return driver as typeof BetterSqlite3;
  const { default: Database } = await importOptionalPeer(() => import('better-sqlite3'), {
    user,
    needs: 'better-sqlite3',
    install: 'better-sqlite3@12',
    from: '@svc/enricher',
    otherwise: 'passed as the `driver` option',
  });
  return Database;
}
