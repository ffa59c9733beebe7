import type { CompanyFields, EnrichmentAdapter } from '../../adapter.js';
import { companyCandidate } from './company.js';
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
  'name',
  'domain',
  'description',
  'employee_count',
  'founded',
  'industry',
  'location',
  'technologies',
  'social',
  'logo',
];

/**
 * The website adapter (company, no key): the homepage and up to `maxSubpages` about/team/contact/
 * imprint pages, fetched politely through the context's guarded fetch, read with htmlparser2 for
 * schema.org JSON-LD, OpenGraph/meta, social links, founding year, employee count, logo, and the
 * technologies the built-in fingerprint set recognises.
 */
export function createWebsiteAdapter(options: WebsiteAdapterOptions = {}): EnrichmentAdapter<'company'> {
  const crawler = crawlerFor('website adapter', options);
  const concurrency = Math.max(1, positiveInteger('concurrency', options.concurrency, 8));
  return {
    id: 'website',
    kind: 'company',
    readsCompanySite: true,
    accepts: ['domain'],
    provides: PROVIDES,
    cost: 0,
    billsMisses: false,
    ttl: options.ttl ?? { hitSeconds: 7 * 86_400, missSeconds: 86_400 },
    concurrency,
    async lookup(query, context) {
      try {
        const crawl = await crawler.crawl(query.domain, context);
        if ('type' in crawl) return crawl;
        const candidate = companyCandidate(crawl);
        return candidate ? { type: 'hit', candidates: [candidate], cost: 0 } : { type: 'miss', cost: 0 };
      } catch (error) {
        // Only the caller's abort gets here: the fetcher answers every site failure as a value.
        return thrownOutcome(error, context);
      }
    },
  };
}
