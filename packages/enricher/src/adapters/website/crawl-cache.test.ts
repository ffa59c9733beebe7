import { type StaticSite, startStaticSite } from '@svc/testkit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AdapterContext } from '../../adapter.js';
import { createEnricher } from '../../enricher.js';
import { createGuardedFetch } from '../../fetch/guarded-fetch.js';
import { createWebsiteCrawler, type WebsiteCrawlerOptions } from './crawler.js';
import { createWebsitePersonAdapter } from './people.js';
import { createWebsiteAdapter } from './website.js';

// One crawl per domain, shared by the company and the person lookups, counted as the requests
// the testkit's site receives. Every *.com name resolves to it.
const guarded = createGuardedFetch({
  lookup: async () => [{ address: '127.0.0.1', family: 4 }],
  isAllowedAddress: (ip) => ip === '127.0.0.1',
});

const HOME = `<title>Acme | Widgets</title>
<script type="application/ld+json">{"@type":"Organization","name":"Acme Widgets","url":"https://acme.com",
 "foundingDate":"2004"}</script><a href="/team">Team</a>`;
const TEAM = `<script type="application/ld+json">[{"@type":"Person","name":"Jane Roe","jobTitle":"VP of Sales",
 "email":"jane@acme.com"},{"@type":"Person","name":"John Poe","jobTitle":"CTO"}]</script>`;

let site: StaticSite;
beforeAll(async () => {
  site = await startStaticSite({ routes: { '/': { body: HOME, delayMs: 30 }, '/team': TEAM } });
});
afterAll(async () => {
  await site.close();
});
// The site's request log only grows: each test counts from where it started (or `restart()`).
let mark = 0;
const restart = () => {
  mark = site.requests.length;
};
beforeEach(restart);
const requests = () => site.requests.slice(mark);
const count = (path: string) => requests().filter((r) => r.path === path).length;

function crawlerOf(options: WebsiteCrawlerOptions = {}) {
  return createWebsiteCrawler({ homepageUrls: (domain) => [`http://${domain}:${site.port}/`], ...options });
}

function context(now: () => number, signal = new AbortController().signal): AdapterContext {
  const refuse = () => Promise.reject(new Error('no DNS in this test'));
  return { signal, fetch: guarded, dns: { resolveMx: refuse, resolveTxt: refuse }, now };
}

describe('shared crawl cache', () => {
  it('one crawl per domain for the company and every person lookup, concurrent or later, through createEnricher', async () => {
    const crawler = crawlerOf();
    const enricher = createEnricher({
      adapters: [createWebsiteAdapter({ crawler }), createWebsitePersonAdapter({ crawler })],
      fetch: guarded,
    });
    const [company, jane] = await Promise.all([
      enricher.enrichCompany({ domain: 'acme.com' }),
      enricher.enrichContact({ domain: 'acme.com', full_name: 'Jane Roe' }),
    ]);
    const john = await enricher.enrichContact({ email: 'john@acme.com' });
    const byEmail = await enricher.enrichContact({ email: 'jane@acme.com' });
    expect(company.match).toMatchObject({ name: 'Acme Widgets', founded: 2004 });
    expect(jane.match).toMatchObject({ full_name: 'Jane Roe', title: 'VP of Sales' });
    expect(john.match).toBeNull(); // no email on his card: a miss, never a guess
    expect(byEmail.match).toMatchObject({ full_name: 'Jane Roe' });
    expect([count('/robots.txt'), count('/'), count('/team')]).toEqual([1, 1, 1]);
  });

  it('crawls again once the TTL has passed (fake clock), and not before', async () => {
    let time = 1_000_000;
    const crawler = crawlerOf({ cacheTtlMs: 60_000 });
    const company = createWebsiteAdapter({ crawler });
    const person = createWebsitePersonAdapter({ crawler });
    const ctx = context(() => time);
    expect((await company.lookup({ by: 'domain', domain: 'acme.com' }, ctx)).type).toBe('hit');
    time += 59_999;
    const jane = { by: 'domain_name', domain: 'acme.com', full_name: 'Jane Roe' } as const;
    expect((await person.lookup(jane, ctx)).type).toBe('hit');
    expect(count('/')).toBe(1);
    time += 1;
    expect((await person.lookup(jane, ctx)).type).toBe('hit');
    expect(count('/')).toBe(2);
  });

  it('keeps at most cacheMaxSites domains (least recently used goes first); cacheTtlMs 0 keeps none', async () => {
    const ctx = context(() => 0);
    const crawler = crawlerOf({ cacheMaxSites: 2 });
    for (const domain of ['a.com', 'b.com', 'a.com', 'c.com', 'a.com', 'b.com'])
      await crawler.crawl(domain, ctx);
    // a, b crawled; a reused; c pushes out b (least recently used); a reused; b crawled again.
    expect(
      requests()
        .filter((r) => r.path === '/')
        .map((r) => r.headers.host?.split(':')[0]),
    ).toEqual(['a.com', 'b.com', 'c.com', 'b.com']);
    restart();
    const none = crawlerOf({ cacheTtlMs: 0 });
    await none.crawl('a.com', ctx);
    await none.crawl('a.com', ctx);
    expect(count('/')).toBe(2);
  });

  it('keeps no crawl larger than cacheMaxBytes, and drops old ones to stay under it', async () => {
    const ctx = context(() => 0);
    const crawler = crawlerOf({ cacheMaxBytes: HOME.length + TEAM.length });
    await crawler.crawl('a.com', ctx);
    await crawler.crawl('a.com', ctx);
    expect(count('/')).toBe(1);
    await crawler.crawl('b.com', ctx); // a.com goes to make room
    await crawler.crawl('a.com', ctx);
    expect(count('/')).toBe(3);
    restart();
    const tiny = crawlerOf({ cacheMaxBytes: 10 });
    await tiny.crawl('a.com', ctx);
    await tiny.crawl('a.com', ctx);
    expect(count('/')).toBe(2);
  });

  it('never keeps an error: a 503 homepage is asked again', async () => {
    const ctx = context(() => 0);
    const crawler = crawlerOf();
    site.setRoute('/', { status: 503, body: 'down' });
    try {
      expect(await crawler.crawl('acme.com', ctx)).toMatchObject({ type: 'error' });
      expect(await crawler.crawl('acme.com', ctx)).toMatchObject({ type: 'error' });
      expect(count('/')).toBe(2);
    } finally {
      site.setRoute('/', { body: HOME, delayMs: 30 });
    }
  });

  it('one lookup giving up does not fail another waiting for the same crawl', async () => {
    const crawler = crawlerOf();
    const impatient = new AbortController();
    const first = crawler.crawl(
      'acme.com',
      context(() => 0, impatient.signal),
    );
    const second = crawler.crawl(
      'acme.com',
      context(() => 0),
    );
    impatient.abort(new Error('caller gave up'));
    await expect(first).rejects.toThrow('caller gave up');
    expect(await second).toMatchObject({ domain: 'acme.com' });
    expect(count('/')).toBe(1);
  });

  it('refuses crawl options beside a shared crawler, naming them, rather than ignoring them', () => {
    const crawler = crawlerOf();
    expect(() => createWebsiteAdapter({ crawler, homepageUrls: () => [] })).toThrow(
      'website adapter: homepageUrls is a crawl option; with a shared `crawler`, pass it to createWebsiteCrawler instead',
    );
    expect(() => createWebsitePersonAdapter({ crawler, timeoutMs: 1, maxSubpages: 0 })).toThrow(
      'website person adapter: timeoutMs, maxSubpages are crawl options',
    );
    // Its own options (not the crawler's) are fine with a shared crawler.
    expect(createWebsiteAdapter({ crawler, concurrency: 2 }).concurrency).toBe(2);
  });
});
