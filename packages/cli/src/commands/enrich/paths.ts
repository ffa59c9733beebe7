import { join, resolve } from 'node:path';
import { dataDir } from '../../data-dir.js';
import type { CliIo } from '../../io.js';
import { checkedPostgresUrl } from '../../postgres-url.js';
import { UsageError } from '../../usage-error.js';

/** Where `svc enrich` keeps its files: the user's dataset index and the cache + suppression list. */
export interface EnrichPaths {
  dataset: string;
  cache: string;
  /**
   * The PostgreSQL database holding the cache and suppression list instead of `cache` (the one
   * `svc serve` uses with the same setting), or null.
   */
  databaseUrl: string | null;
}

/**
 * `--dataset` and `--cache` as given, else `enrich-dataset.db` and `enrich-cache.db` in the data
 * dir `svc serve` uses too (`dataDir`), so a running server reads what an import wrote (the suppression list lives in the cache file, so an erase and
 * the cache it purged stay together). With `--database-url` (else `SVC_DATABASE_URL`, as
 * `svc serve` reads it) and no `--cache`, the cache and suppression list are that database's,
 * shared with every server on it.
 */
export function enrichPaths(io: CliIo, values: Record<string, unknown>): EnrichPaths {
  const flag = values['database-url'] as string | undefined;
  if (flag !== undefined && values.cache !== undefined)
    throw new UsageError('give --cache (a SQLite file) or --database-url (PostgreSQL), not both', 'enrich');
  const url = flag ?? (values.cache === undefined ? io.env.SVC_DATABASE_URL : undefined);
  const databaseUrl = url
    ? checkedPostgresUrl(url, flag !== undefined ? '--database-url' : 'SVC_DATABASE_URL', 'enrich')
    : null;
  return {
    dataset: values.dataset
      ? resolve(io.cwd, values.dataset as string)
      : join(dataDir(io), 'enrich-dataset.db'),
    cache: values.cache ? resolve(io.cwd, values.cache as string) : join(dataDir(io), 'enrich-cache.db'),
    databaseUrl,
  };
}
