import { join } from 'node:path';
import type { SqliteDriver } from '@svc/core';
import {
  createMemoryResultCache,
  createPostgresResultCache,
  createSqliteResultCache,
  type ResultCache,
} from '@svc/email-verifier';
import type { ResolvedServerOptions } from './options.js';

/** The verification result cache's file inside the data dir (`verifyCache.store: sqlite`). */
export const VERIFY_CACHE_DB_FILE = 'verify-cache.db';

/**
 * The result cache `verifyCache` asks for: a SQLite file in the data dir (every process on this
 * data dir shares it: the API and the batch runner), a table in `databaseUrl`'s database (every
 * process and machine on it), this process's memory, or none (false).
 */
export async function openVerifyCache(
  options: ResolvedServerOptions,
  sqliteDriver?: SqliteDriver,
): Promise<ResultCache | false> {
  const { store, ttlSeconds } = options.verifyCache;
  if (store === 'off') return false;
  if (store === 'memory') return createMemoryResultCache({ ttlSeconds });
  if (store === 'postgres') {
    if (!options.databaseUrl) throw new Error('verifyCache.store postgres needs databaseUrl');
    return createPostgresResultCache({ connectionString: options.databaseUrl, ttlSeconds });
  }
  return createSqliteResultCache({
    path: join(options.dataDir, VERIFY_CACHE_DB_FILE),
    ttlSeconds,
    ...(sqliteDriver ? { driver: sqliteDriver } : {}),
  });
}

/**
 * The cache namespace of an account's verifications: its own id, so no account is served a
 * result another account's request produced, unless the operator shares them
 * (`verifyCache.shareAcrossAccounts`: one namespace, `''`).
 */
export function verifyCacheNamespace(options: ResolvedServerOptions, accountId: string | null): string {
  return options.verifyCache.shareAcrossAccounts ? '' : (accountId ?? '');
}
