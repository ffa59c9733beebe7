import { join } from 'node:path';
import type { SqliteDriver } from '@svc/core';
import { openPostgresPool } from '@svc/core/postgres';
import {
  createDatasetAdapters,
  createDnsAdapter,
  createEnricher,
  createPostgresCache,
  createPostgresSuppression,
  createSqliteCache,
  createSqliteSuppression,
  createWebsiteAdapter,
  createWebsiteCrawler,
  createWebsitePersonAdapter,
  type Enricher,
  type EnrichmentAdapter,
  type EnrichmentCache,
  paidProviderAdapters,
  type SuppressionList,
  watchDatasetIndex,
} from '@svc/enricher';

/**
 * The files `svc serve` shares with `svc enrich` in the data dir: the cache holds the
 * suppression list too, so `svc enrich erase` purges what the server cached and the server
 * refuses the erased subject from then on; the dataset index is what `svc enrich import` built
 * (followed while the server runs: an import shows on the next request, no restart needed).
 */
export const ENRICH_CACHE_DB_FILE = 'enrich-cache.db';
export const ENRICH_DATASET_DB_FILE = 'enrich-dataset.db';

/**
 * `svc serve`'s live enricher, in priority order: the user's own dataset (when imported), the
 * company website (company and team pages, sharing one crawler), DNS, then each paid provider
 * of `@svc/enricher`'s `PAID_PROVIDERS` whose key is in the environment (`envVar`, the variables
 * `svc enrich` reads too). Cache and suppression list in SQLite in the data dir, or with
 * `databaseUrl` in its PostgreSQL database (schema `svc_enrich`), shared by every machine on it:
 * an erase on one applies on all at once.
 */
export async function openServeEnricher(input: {
  dataDir: string;
  env: Record<string, string | undefined>;
  driver?: SqliteDriver;
  databaseUrl?: string | null;
}): Promise<{ enricher: Enricher; close(): Promise<void> }> {
  const driver = input.driver ?? (await import('better-sqlite3')).default;
  const closers: Array<() => Promise<void> | void> = [];
  const adapters: EnrichmentAdapter[] = [];
  // Followed, not opened once: a dataset imported after the start (the file appears) or
  // re-imported is used from the next request; while there is none, both adapters sit out.
  const dataset = await watchDatasetIndex({ path: join(input.dataDir, ENRICH_DATASET_DB_FILE), driver });
  closers.push(() => dataset.close());
  const { person, company } = createDatasetAdapters(dataset);
  adapters.push(person as EnrichmentAdapter, company as EnrichmentAdapter);
  const crawler = createWebsiteCrawler();
  adapters.push(
    createWebsiteAdapter({ crawler }) as EnrichmentAdapter,
    createWebsitePersonAdapter({ crawler }) as EnrichmentAdapter,
    createDnsAdapter() as EnrichmentAdapter,
  );
  adapters.push(...paidProviderAdapters(input.env));
  const privacy = await openPrivacyStores(input.dataDir, driver, input.databaseUrl ?? null);
  const { cache, suppression } = privacy;
  closers.push(() => privacy.close());
  return {
    enricher: createEnricher({ adapters, cache, suppression }),
    async close() {
      for (const close of closers.reverse()) await close();
    },
  };
}

/**
 * The cache and suppression list: in `databaseUrl`'s PostgreSQL when given (one pool of 4
 * connections for both, from the server's own pg), else the data dir's SQLite file.
 */
async function openPrivacyStores(
  dataDir: string,
  driver: SqliteDriver,
  databaseUrl: string | null,
): Promise<{ cache: EnrichmentCache; suppression: SuppressionList; close(): Promise<void> }> {
  if (!databaseUrl) {
    const path = join(dataDir, ENRICH_CACHE_DB_FILE);
    const cache = await createSqliteCache({ path, driver });
    const suppression = await createSqliteSuppression({ path, driver });
    return {
      cache,
      suppression,
      async close() {
        await cache.close();
        await suppression.close();
      },
    };
  }
  const { pool } = await openPostgresPool(
    { connectionString: databaseUrl, poolSize: 4 },
    {
      store: 'the PostgreSQL enrichment stores',
      database: 'the enrichment database',
      from: '@svc/server',
      loadPg: () => import('pg'),
    },
  );
  try {
    // Given a pool, they leave it open: it is ended here, after both.
    const cache = await createPostgresCache({ pool });
    const suppression = await createPostgresSuppression({ pool });
    return { cache, suppression, close: () => pool.end() };
  } catch (error) {
    await pool.end().catch(() => {});
    throw error;
  }
}
