import type { AdapterKind, Candidate, CompanyFields, EnrichmentAdapter, QueryOf } from '../../adapter.js';
import { COMPANY_PROFILE_FIELDS } from '../fields.js';
import { companyCandidate, type SiteCrawl } from './company.js';
import {
  crawlerFor,
  positiveInteger,
  thrownOutcome,
  type WebsiteCrawler,
  type WebsiteCrawlerOptions,
} from './crawler.js';

/**
 * Options of `createWebsiteAdapter` and `createWebsitePersonAdapter`. The crawl options make the
 * adapter's own crawler; with a shared `crawler` they are refused (a `TypeError`), since that
 * crawler was made with its own.
 */
export interface WebsiteAdapterOptions extends WebsiteCrawlerOptions {
  /**
   * A crawler shared with the website person adapter (one robots.txt cache, one per-host limit,
   * one crawl per domain within its `cacheTtlMs`). @default a new crawler from these options
   */
  crawler?: WebsiteCrawler;
  /** Most lookups in flight. @default 8 */
  concurrency?: number;
  /** Cache TTLs for hits and misses, seconds. @default { hitSeconds: 7 days, missSeconds: 1 day } */
  ttl?: { hitSeconds: number; missSeconds: number };
}

const PROVIDES: readonly (keyof CompanyFields)[] = [
  ...COMPANY_PROFILE_FIELDS,
  'technologies',
  'social',
  'logo',
  'language',
];

/**
 * The website adapter (company, no key): the homepage and up to `maxSubpages` about/team/contact/
 * imprint pages, fetched politely through the context's guarded fetch, read with htmlparser2 for
 * schema.org JSON-LD, OpenGraph/meta, social links, founding year, employee count, logo, and the
 * technologies the built-in fingerprint set recognises.
 */
export function createWebsiteAdapter(options: WebsiteAdapterOptions = {}): EnrichmentAdapter<'company'> {
  return createSiteAdapter(
    'website adapter',
    options,
    { id: 'website', kind: 'company', accepts: ['domain'], provides: PROVIDES },
    companyCandidate,
  );
}

/**
 * An adapter that reads the company's own site (company or person): free, `readsCompanySite`, its
 * crawler from `options` (`crawlerFor`). A lookup crawls the query's domain (a query without one
 * is a miss) and `read`s a candidate from the crawl; a crawl that fails is the outcome, and only
 * the caller's abort is thrown here (the fetcher answers every site failure as a value).
 */
export function createSiteAdapter<K extends AdapterKind>(
  name: string,
  options: WebsiteAdapterOptions,
  declared: Pick<EnrichmentAdapter<K>, 'id' | 'kind' | 'accepts' | 'provides'>,
  read: (crawl: SiteCrawl, query: QueryOf<K>) => Candidate<K> | null,
): EnrichmentAdapter<K> {
  const crawler = crawlerFor(name, options);
  return {
    ...declared,
    readsCompanySite: true,
    cost: 0,
    billsMisses: false,
    ttl: options.ttl ?? { hitSeconds: 7 * 86_400, missSeconds: 86_400 },
    concurrency: Math.max(1, positiveInteger('concurrency', options.concurrency, 8)),
    async lookup(query, context) {
      if (!('domain' in query)) return { type: 'miss', cost: 0 };
      try {
        const crawl = await crawler.crawl(query.domain, context);
        if ('type' in crawl) return crawl;
        const candidate = read(crawl, query);
        return candidate ? { type: 'hit', candidates: [candidate], cost: 0 } : { type: 'miss', cost: 0 };
      } catch (error) {
        return thrownOutcome(error, context);
      }
    },
  };
}
