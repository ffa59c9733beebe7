import { promises as dnsPromises } from 'node:dns';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type {
  Enricher,
  EnrichmentAdapter,
  EnrichmentCache,
  EnrichmentDns,
  SuppressionList,
} from '@svc/enricher';
import { PAID_PROVIDERS } from '@svc/enricher/providers';
import type { CliIo } from '../../io.js';
import { cliSqliteDriver } from '../../sqlite-driver.js';
import { UsageError } from '../../usage-error.js';
import type { EnrichPaths } from './paths.js';

/** The keyless adapters, in the default priority order (the user's own data first). */
const KEYLESS_ADAPTERS = ['dataset', 'website', 'dns'] as const;

/**
 * The built-in adapters, in the default priority order: the keyless ones, then `@svc/enricher`'s
 * paid providers (used only when their key is in the environment).
 */
export const ADAPTER_NAMES: readonly string[] = [
  ...KEYLESS_ADAPTERS,
  ...PAID_PROVIDERS.map((provider) => provider.id),
];

export const ENRICH_SETUP_HELP = `  --adapters a,b   adapters in priority order, default
                   ${ADAPTER_NAMES.join(',')};
                   a paid provider only with its key in ${PAID_PROVIDERS.map((provider) => provider.envVar).join(',\n                   ')}
  --dns host:port  ask this DNS server (default: the system's)
  --dataset <path> the dataset index (default: enrich-dataset.db in the data dir svc serve uses)
  --cache <path>   cache and suppression list (default: enrich-cache.db in the data dir)
  --database-url <url>
                   keep them in PostgreSQL instead, shared with every svc serve on that
                   database (default: $SVC_DATABASE_URL unless --cache is given)
  --min-confidence N
                   a result below N (0..1) is no match (default 0.5)`;

function adapterNames(values: Record<string, unknown>): string[] {
  if (values.adapters === undefined) return [...ADAPTER_NAMES];
  const names = String(values.adapters)
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  for (const name of names) {
    if (!ADAPTER_NAMES.includes(name)) {
      throw new UsageError(
        `--adapters: unknown adapter "${name}" (known: ${ADAPTER_NAMES.join(', ')})`,
        'enrich',
      );
    }
  }
  if (names.length === 0) throw new UsageError('--adapters needs at least one adapter', 'enrich');
  return names;
}

function dnsOption(value: unknown): EnrichmentDns | undefined {
  if (value === undefined) return undefined;
  const resolver = new dnsPromises.Resolver({ timeout: 3000, tries: 2 });
  try {
    resolver.setServers([String(value)]);
  } catch {
    throw new UsageError(`--dns must be host:port or an IP address, got "${String(value)}"`, 'enrich');
  }
  return resolver;
}

function minConfidence(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!(number >= 0 && number <= 1)) {
    throw new UsageError(`--min-confidence must be a number from 0 to 1, got "${String(value)}"`, 'enrich');
  }
  return number;
}

/** An enricher built from the command line, and what to close afterwards. */
export interface CliEnricher {
  enricher: Enricher;
  /** Adapter ids in use, for the summary. */
  adapters: string[];
  /** The dataset index: `searched`, `missing` (the dataset adapter was wanted, no file), or unused. */
  dataset: 'searched' | 'missing' | 'unused';
  close(): Promise<void>;
}

/**
 * Builds the enricher `svc enrich contact|company|erase` use: the chosen adapters (the dataset
 * only when its index exists, a paid provider only with its key), a SQLite cache and suppression
 * list in one private file, the system DNS or `--dns`.
 */
export async function openCliEnricher(
  io: CliIo,
  values: Record<string, unknown>,
  paths: EnrichPaths,
): Promise<CliEnricher> {
  const names = adapterNames(values);
  const dns = dnsOption(values.dns);
  const min = minConfidence(values['min-confidence']);
  const enricher = await import('@svc/enricher');
  const driver = await cliSqliteDriver();
  const closers: Array<() => Promise<void> | void> = [];
  const adapters: EnrichmentAdapter[] = [];
  let dataset: CliEnricher['dataset'] = 'unused';
  for (const name of names) {
    switch (name) {
      case 'dataset': {
        // No index yet: nothing imported, so nothing to look in (and no empty file made).
        dataset = existsSync(paths.dataset) ? 'searched' : 'missing';
        if (dataset === 'missing') break;
        const index = await enricher.openDatasetIndex({ path: paths.dataset, driver });
        closers.push(() => index.close());
        const { person, company } = enricher.createDatasetAdapters(index);
        adapters.push(person as EnrichmentAdapter, company as EnrichmentAdapter);
        break;
      }
      case 'website': {
        // One crawler for both, so they share robots.txt answers and per-host limits.
        const crawler = enricher.createWebsiteCrawler();
        adapters.push(
          enricher.createWebsiteAdapter({ crawler }) as EnrichmentAdapter,
          enricher.createWebsitePersonAdapter({ crawler }) as EnrichmentAdapter,
        );
        break;
      }
      case 'dns':
        adapters.push(enricher.createDnsAdapter() as EnrichmentAdapter);
        break;
      default: {
        const provider = PAID_PROVIDERS.find((candidate) => candidate.id === name);
        if (!provider) break;
        const apiKey = io.env[provider.envVar];
        if (!apiKey) {
          // Named explicitly without its key: say so rather than silently skip it.
          if (values.adapters !== undefined) {
            throw new UsageError(`--adapters ${name} needs ${provider.envVar} in the environment`, 'enrich');
          }
          break;
        }
        const { person, company } = provider.create({ apiKey });
        adapters.push(person as EnrichmentAdapter, company as EnrichmentAdapter);
      }
    }
  }
  let cache: EnrichmentCache;
  let suppression: SuppressionList;
  if (paths.databaseUrl) {
    // The CLI's own pg: @svc/enricher has it as an optional peer (see sqlite-driver.ts).
    const pg = await import('pg');
    const where = { connectionString: paths.databaseUrl, driver: pg, poolSize: 2 };
    cache = await enricher.createPostgresCache(where);
    closers.push(() => cache.close());
    try {
      suppression = await enricher.createPostgresSuppression(where);
    } catch (error) {
      await cache.close();
      throw error;
    }
  } else {
    await mkdir(dirname(paths.cache), { recursive: true, mode: 0o700 });
    cache = await enricher.createSqliteCache({ path: paths.cache, driver });
    closers.push(() => cache.close());
    suppression = await enricher.createSqliteSuppression({ path: paths.cache, driver });
  }
  closers.push(() => suppression.close());
  return {
    enricher: enricher.createEnricher({
      adapters,
      cache,
      suppression,
      ...(dns ? { dns } : {}),
      ...(min !== undefined ? { minConfidence: min } : {}),
    }),
    adapters: [...new Set(adapters.map((adapter) => adapter.id))],
    dataset,
    async close() {
      for (const close of closers.reverse()) await close();
    },
  };
}
