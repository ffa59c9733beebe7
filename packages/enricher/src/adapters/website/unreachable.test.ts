import { closedPort, startStaticSite } from '@svc/testkit';
import { describe, expect, it } from 'vitest';
import { createEnricher } from '../../enricher.js';
import { createGuardedFetch } from '../../fetch/guarded-fetch.js';
import { createWebsiteCrawler } from './crawler.js';
import { createWebsitePersonAdapter } from './people.js';
import { createWebsiteAdapter } from './website.js';

// Every name resolves to the loopback, where the test's ports are.
const guarded = createGuardedFetch({
  lookup: async () => [{ address: '127.0.0.1', family: 4 }],
  isAllowedAddress: (ip) => ip === '127.0.0.1',
});

describe('a company site with no web server', () => {
  it('is a miss marked unreachable (cached, no breaker), so the enricher says the site was not reached', async () => {
    const port = await closedPort();
    const crawler = createWebsiteCrawler({ homepageUrls: (domain) => [`http://${domain}:${port}/`] });
    const company = createWebsiteAdapter({ crawler });
    const outcome = await company.lookup(
      { by: 'domain', domain: 'acme.com' },
      { fetch: guarded, signal: AbortSignal.timeout(5000), now: Date.now, dns: undefined as never },
    );
    expect(outcome).toEqual({ type: 'miss', cost: 0, unreachable: true });
    const enricher = createEnricher({
      adapters: [company, createWebsitePersonAdapter({ crawler })],
      fetch: guarded,
    });
    const contact = await enricher.enrichContact({ email: 'jane@acme.com' });
    expect(contact).toMatchObject({
      match: null,
      miss: 'all_adapters_failed',
      adapters: [{ adapter: 'website_people', status: 'miss', unreachable: true }],
    });
  });

  it('a site that answers without the subject is `not_found_on_site`', async () => {
    const site = await startStaticSite({ routes: { '/': '<html lang="en"><title>x</title></html>' } });
    try {
      const crawler = createWebsiteCrawler({ homepageUrls: (domain) => [`http://${domain}:${site.port}/`] });
      const enricher = createEnricher({
        adapters: [createWebsitePersonAdapter({ crawler })],
        fetch: guarded,
      });
      expect(await enricher.enrichContact({ email: 'jane@acme.com' })).toMatchObject({
        match: null,
        miss: 'not_found_on_site',
      });
    } finally {
      await site.close();
    }
  });
});
