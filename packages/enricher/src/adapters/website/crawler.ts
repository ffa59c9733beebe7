import { getDomain } from 'tldts';
import type { AdapterContext, AdapterKind, LookupOutcome } from '../../adapter.js';
import type { SiteCrawl } from './company.js';
import { CrawlCache, type CrawlResult } from './crawl-cache.js';
import { extractPage, type PageFacts } from './extract.js';
import { type FetchedPage, type PageFailure, PoliteFetcher } from './polite-fetch.js';
import { pickSubpages } from './subpages.js';
import { teamCards } from './team-cards.js';

/** How the website adapters fetch (one crawler can serve the company and the person adapter). */
export interface WebsiteCrawlerOptions {
  /**
   * The homepage URLs tried for a domain, in order; the next is tried only when one is unreachable.
   * @default (domain) => [`https://${domain}/`, `https://www.${domain}/`]
   */
  homepageUrls?: (domain: string) => string[];
  /** The product token looked up in robots.txt (`User-agent: svc-enricher`). @default 'svc-enricher' */
  robotsToken?: string;
  /** Most requests in flight to one host. @default 2 */
  perHostConcurrency?: number;
  /** Deadline per page (connect, headers and body). @default 8000 */
  timeoutMs?: number;
  /** Most bytes read of one page; a longer page is read up to here and parsed. @default 1 MiB */
  maxBytes?: number;
  /** Most redirects followed per page, each checked against robots.txt. @default 3 */
  maxRedirects?: number;
  /** Pages fetched besides the homepage (about, team, contact, imprint links it has). @default 4 */
  maxSubpages?: number;
  /** How long a robots.txt is reused, ms. @default 3600000 */
  robotsTtlMs?: number;
  /**
   * How long a domain's crawl is reused by every lookup through this crawler (company and person
   * adapters alike), ms; 0 keeps none. Errors (timeouts, 5xx, 429) are never kept. @default 3600000
   */
  cacheTtlMs?: number;
  /** Most domains whose crawl is kept; the least recently used goes first. @default 1000 */
  cacheMaxSites?: number;
  /** Most HTML bytes the kept crawls were read from, summed. @default 67108864 (64 MiB) */
  cacheMaxBytes?: number;
}

/**
 * Every option of {@link WebsiteCrawlerOptions}, so an adapter given a shared `crawler` can refuse
 * its own crawl options instead of ignoring them (the compiler keeps this list complete).
 */
export const WEBSITE_CRAWLER_OPTIONS = Object.keys({
  homepageUrls: true,
  robotsToken: true,
  perHostConcurrency: true,
  timeoutMs: true,
  maxBytes: true,
  maxRedirects: true,
  maxSubpages: true,
  robotsTtlMs: true,
  cacheTtlMs: true,
  cacheMaxSites: true,
  cacheMaxBytes: true,
} satisfies Record<keyof WebsiteCrawlerOptions, true>) as readonly (keyof WebsiteCrawlerOptions)[];

/** The registrable domain of a URL's host (tldts; an unlisted TLD counts as one label), or the host itself. */
function siteOf(url: string): string {
  const host = new URL(url).hostname.toLowerCase();
  return getDomain(host) ?? host;
}

/** Validates a count option (a `TypeError` naming it), or gives its default. */
export function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0)
    throw new TypeError(`website adapter: ${name} must be a non-negative integer`);
  return value;
}

function headerRecord(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name.toLowerCase()] = value;
  });
  return out;
}

/** Turns why the homepage failed into the lookup's outcome: the site's absence is a miss, its trouble an error. */
function homepageFailure(failure: PageFailure): CrawlFailure {
  switch (failure.type) {
    case 'timeout':
      return {
        type: 'error',
        error: { kind: 'timeout', message: `${failure.url}: no answer in time` },
        cost: 0,
      };
    case 'status': {
      if (failure.status === 429) {
        const seconds = Number(failure.retryAfter);
        return {
          type: 'error',
          error: {
            kind: 'rate_limited',
            message: `${failure.url}: 429`,
            retryAfterSeconds: Number.isFinite(seconds) && failure.retryAfter !== null ? seconds : null,
          },
          cost: 0,
        };
      }
      if (failure.status >= 500) {
        return {
          type: 'error',
          error: { kind: 'upstream', message: `${failure.url}: ${failure.status}`, status: failure.status },
          cost: 0,
        };
      }
      return { type: 'miss', cost: 0 };
    }
    case 'unreachable':
      // No web server at all: nothing to read now, and asking again soon will not change that;
      // but nothing was looked at either, which the miss says.
      return { type: 'miss', cost: 0, unreachable: true };
    default:
      // Disallowed by robots.txt, not HTML, too large, or a redirect loop: nothing to read now,
      // and asking again soon will not change that.
      return { type: 'miss', cost: 0 };
  }
}

/** A lookup's answer when the site could not be read: never a hit. */
export type CrawlFailure = Exclude<LookupOutcome<AdapterKind>, { type: 'hit' }>;

/**
 * Reads a company's site politely; shared by adapters so robots.txt, per-host limits and the
 * crawls themselves are shared too: one crawl per domain within `cacheTtlMs`.
 */
export interface WebsiteCrawler {
  /**
   * The homepage (first page) and the about/team/contact/imprint pages it links to, or why not.
   * The answer may be a kept crawl shared with other lookups: read it, never change it. Rejects
   * only when `context.signal` aborts.
   */
  crawl(domain: string, context: AdapterContext): Promise<SiteCrawl | CrawlFailure>;
  /** Forgets every kept crawl (robots.txt rules stay). */
  clear(): void;
}

/**
 * The crawler an adapter uses: the shared one it was given, or its own from its options. Crawl
 * options given beside a shared crawler are refused (a `TypeError` naming them): they would
 * otherwise be silently ignored, the shared crawler having been made with its own.
 */
export function crawlerFor(
  adapter: string,
  options: WebsiteCrawlerOptions & { crawler?: WebsiteCrawler | undefined },
): WebsiteCrawler {
  if (!options.crawler) return createWebsiteCrawler(options);
  const given = WEBSITE_CRAWLER_OPTIONS.filter((name) => options[name] !== undefined);
  if (given.length > 0) {
    throw new TypeError(
      `${adapter}: ${given.join(', ')} ${given.length === 1 ? 'is a crawl option' : 'are crawl options'}; with a shared \`crawler\`, pass ${given.length === 1 ? 'it' : 'them'} to createWebsiteCrawler instead`,
    );
  }
  return options.crawler;
}

/** Creates a crawler; throws a `TypeError` naming a bad option. */
export function createWebsiteCrawler(options: WebsiteCrawlerOptions = {}): WebsiteCrawler {
  const homepageUrls =
    options.homepageUrls ?? ((domain: string) => [`https://${domain}/`, `https://www.${domain}/`]);
  const maxSubpages = positiveInteger('maxSubpages', options.maxSubpages, 4);
  const crawls = new CrawlCache({
    ttlMs: positiveInteger('cacheTtlMs', options.cacheTtlMs, 3_600_000),
    maxSites: positiveInteger('cacheMaxSites', options.cacheMaxSites, 1000),
    maxBytes: positiveInteger('cacheMaxBytes', options.cacheMaxBytes, 64 * 1024 * 1024),
  });
  const fetcher = new PoliteFetcher({
    productToken: options.robotsToken ?? 'svc-enricher',
    perHostConcurrency: Math.max(1, positiveInteger('perHostConcurrency', options.perHostConcurrency, 2)),
    timeoutMs: Math.max(1, positiveInteger('timeoutMs', options.timeoutMs, 8000)),
    maxBytes: Math.max(1, positiveInteger('maxBytes', options.maxBytes, 1024 * 1024)),
    maxRedirects: positiveInteger('maxRedirects', options.maxRedirects, 3),
    robotsTtlMs: positiveInteger('robotsTtlMs', options.robotsTtlMs, 3_600_000),
  });

  async function crawlOnce(domain: string, context: AdapterContext): Promise<CrawlResult> {
    const page = (url: string) => fetcher.page(url, context.fetch, context.signal, context.now);
    let home: FetchedPage | undefined;
    let failure: PageFailure | undefined;
    for (const url of homepageUrls(domain)) {
      const result = await page(url);
      if (result.type === 'page') {
        // A homepage that redirected to another registrable domain is not the company's own
        // site: parked domains forward to a marketplace, and its facts would be taken for the
        // company's. (A rebrand is lost too; a miss is better than another company's profile.)
        if (siteOf(result.url) !== siteOf(url)) return { value: { type: 'miss', cost: 0 }, bytes: 0 };
        home = result;
        break;
      }
      failure = result;
      // Only an unreachable host makes the next candidate (www.) worth a try.
      if (result.type !== 'unreachable') break;
    }
    if (!home) return { value: failure ? homepageFailure(failure) : { type: 'miss', cost: 0 }, bytes: 0 };

    const homeFacts: PageFacts = { ...extractPage(home.html, home.url), kind: 'home' };
    const pages: PageFacts[] = [homeFacts];
    const subpages = pickSubpages(homeFacts, maxSubpages);
    const fetched = await Promise.all(subpages.map(({ url }) => page(url)));
    let bytes = home.html.length;
    fetched.forEach((result, i) => {
      // A missing or failing about page costs the lookup nothing: the homepage already answered.
      if (result.type === 'page') {
        pages.push(subpageFacts(result.html, result.url, subpages[i]!.kind));
        bytes += result.html.length;
      }
    });
    return { value: { domain, pages, headers: headerRecord(home.headers), cookies: home.cookies }, bytes };
  }

  return {
    crawl(domain, context) {
      const site = domain.toLowerCase();
      return crawls.get(site, context, (shared) => crawlOnce(site, shared));
    },
    clear: () => crawls.clear(),
  };
}

/** A subpage read: its facts, and on a team or about page the people it shows as cards. */
function subpageFacts(html: string, url: string, kind: string): PageFacts {
  const facts: PageFacts = { ...extractPage(html, url), kind };
  if (kind === 'team' || kind === 'about') facts.cards = teamCards(html);
  return facts;
}

/** What a lookup answers when it is aborted or something unexpected throws: a typed error, never a throw. */
export function thrownOutcome(error: unknown, context: AdapterContext): CrawlFailure {
  if (context.signal.aborted) {
    return { type: 'error', error: { kind: 'timeout', message: 'lookup aborted by the caller' }, cost: 0 };
  }
  return {
    type: 'error',
    error: { kind: 'upstream', message: error instanceof Error ? error.message : String(error) },
    cost: 0,
  };
}
