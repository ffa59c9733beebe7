import type { SqliteStoreOptions } from '@svc/batch-runner';

/**
 * better-sqlite3 as the CLI resolves it, for `createSqliteStore({ driver })`. The CLI depends on
 * better-sqlite3; @svc/batch-runner only has it as an optional peer, which resolves from the
 * batch-runner's own folder: in a global npm install that folder is a sibling of the CLI's and
 * cannot see the copy installed under the CLI. Importing it here finds it wherever the CLI is.
 */
export async function cliSqliteDriver(): Promise<NonNullable<SqliteStoreOptions['driver']>> {
  return (await import('better-sqlite3')).default;
}
