import { join, resolve } from 'node:path';
import { dataDir } from '../../data-dir.js';
import type { CliIo } from '../../io.js';

/** Where `svc enrich` keeps its files: the user's dataset index and the cache + suppression list. */
export interface EnrichPaths {
  dataset: string;
  cache: string;
}

/**
 * `--dataset` and `--cache` as given, else `$SVC_DATA_DIR/enrich-dataset.db` and
 * `$SVC_DATA_DIR/enrich-cache.db` (the suppression list lives in the cache file, so an erase and
 * the cache it purged stay together).
 */
export function enrichPaths(io: CliIo, values: Record<string, unknown>): EnrichPaths {
  const dir = dataDir(io.env);
  return {
    dataset: values.dataset ? resolve(io.cwd, values.dataset as string) : join(dir, 'enrich-dataset.db'),
    cache: values.cache ? resolve(io.cwd, values.cache as string) : join(dir, 'enrich-cache.db'),
  };
}
