import { type StaticSite, startStaticSite } from '@svc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEnricher } from '../../enricher.js';
import { createGuardedFetch } from '../../fetch/guarded-fetch.js';
import { createWebsiteCrawler } from './crawler.js';
import { createWebsitePersonAdapter } from './people.js';
import { createWebsiteAdapter } from './website.js';

// The website adapters behind the real orchestrator: what a self-hoster with no key gets. The
// guarded fetch resolves every name to the loopback site, so acme.com (a registrable domain, as
// queries need) is never looked up on the internet.
const HOME = `<title>Acme | Widgets</title>
<script type="application/ld+json">{"@type":"Organization","name":"Acme Widgets","url":"https://acme.com",
 "foundingDate":"2004","numberOfEmployees":120,"employee":[{"@type":"Person","name":"Jane Roe","jobTitle":"VP of Sales"}]}</script>
<script src="https://js.hs-scripts.com/1.js"></script>`;

let site: StaticSite;
beforeAll(async () => {
  site = await startStaticSite({ routes: { '/': HOME } });
});
afterAll(async () => {
  await site.close();
});

function enricher() {
  const crawler = createWebsiteCrawler({ homepageUrls: (domain) => [`http://${domain}:${site.port}/`] });
  return createEnricher({
    adapters: [createWebsiteAdapter({ crawler }), createWebsitePersonAdapter({ crawler })],
    fetch: createGuardedFetch({
      lookup: async () => [{ address: '127.0.0.1', family: 4 }],
      isAllowedAddress: (ip) => ip === '127.0.0.1',
    }),
  });
}

describe('website adapters through createEnricher', () => {
  it('answers a company from its own site, with sources naming the website adapter', async () => {
    const { match } = await enricher().enrichCompany({ domain: 'https://www.acme.com/about' });
    expect(match).toMatchObject({
      name: 'Acme Widgets',
      domain: 'acme.com',
      founded: 2004,
      employee_count: 120,
    });
    expect(match?.technologies).toEqual(['HubSpot']);
    expect(match?.sources?.name).toMatchObject({
      adapter: 'website',
      evidence: 'schema.org Organization (identity)',
    });
    expect(match?.language).toBeNull();
  });

  it('drops a name read from a homepage title that agrees with nothing (below the default threshold)', async () => {
    site.setRoute(
      '/',
      '<html lang="en"><title>Best widgets online | Free shipping</title><meta name="description" content="Widgets."></html>',
    );
    try {
      const { match } = await enricher().enrichCompany({ domain: 'acme.com' });
      expect(match).toMatchObject({ name: null, description: 'Widgets.', language: 'en' });
      site.setRoute('/', '<title>Best widgets online | Acme</title>');
      const again = await enricher().enrichCompany({ domain: 'acme.com' });
      expect(again.match).toMatchObject({ name: 'Acme' });
      expect(again.match?.sources.name?.evidence).toBe('title+domain');
    } finally {
      site.setRoute('/', HOME);
    }
  });

  it('answers a person the site lists, by domain and name, with seniority from the title', async () => {
    const { match } = await enricher().enrichContact({ domain: 'acme.com', full_name: 'jane roe' });
    expect(match).toMatchObject({ full_name: 'Jane Roe', title: 'VP of Sales', seniority: 'vp' });
    expect(match?.sources?.title?.adapter).toBe('website_people');
  });
});
