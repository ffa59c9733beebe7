import { type StaticSite, startStaticSite } from '@svc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdapterContext } from '../../adapter.js';
import { createGuardedFetch } from '../../fetch/guarded-fetch.js';
import { describeAdapter } from '../../testing/describe-adapter.js';
import { createWebsiteCrawler } from './crawler.js';
import { createWebsitePersonAdapter, nameMatchKey } from './people.js';
import { createWebsiteAdapter } from './website.js';

const guarded = createGuardedFetch({
  lookup: async () => [{ address: '127.0.0.1', family: 4 }],
  isAllowedAddress: (ip) => ip === '127.0.0.1',
});

const HOME = `<title>Acme | Widgets</title>
<script type="application/ld+json">{"@type":"Organization","name":"Acme Widgets","url":"https://acme.test",
 "founder":{"@type":"Person","name":"Zoë Ångström","jobTitle":"Founder & Chair"}}</script>
<a href="/team">Team</a>`;
const TEAM = `<h1>Our team</h1><script type="application/ld+json">[
 {"@type":"Person","givenName":"José","familyName":"García","name":"José García","jobTitle":"VP Sales",
  "email":"mailto:Jose.Garcia@acme.test","sameAs":["https://de.linkedin.com/in/JoseGarcia/"]},
 {"@type":"Person","name":"Jane Roe","jobTitle":"Head of Marketing"}]</script>`;

let site: StaticSite;
beforeAll(async () => {
  site = await startStaticSite({ routes: { '/': HOME, '/team': TEAM } });
});
afterAll(async () => {
  await site.close();
});

const options = () => ({
  homepageUrls: (domain: string) => [`http://${domain}:${domain === 'acme.test' ? site.port : 9}/`],
});
function context(): AdapterContext {
  const refuse = () => Promise.reject(new Error('no DNS'));
  return {
    signal: new AbortController().signal,
    fetch: guarded,
    dns: { resolveMx: refuse, resolveTxt: refuse },
    now: Date.now,
  };
}

describe('website person adapter', () => {
  it('finds a Person on the team page by domain and full name (case, accents and honorifics aside)', async () => {
    const outcome = await createWebsitePersonAdapter(options()).lookup(
      { by: 'domain_name', domain: 'acme.test', full_name: 'Dr. jose garcia' },
      context(),
    );
    expect(outcome).toEqual({
      type: 'hit',
      cost: 0,
      candidates: [
        {
          confidence: 0.8,
          fields: {
            full_name: 'José García',
            first_name: 'José',
            last_name: 'García',
            title: 'VP Sales',
            email: 'jose.garcia@acme.test',
            profile_url: 'https://www.linkedin.com/in/josegarcia',
            company_name: 'Acme Widgets',
            company_domain: 'acme.test',
          },
        },
      ],
    });
  });

  it('finds a founder nested in the Organization, and by exact email', async () => {
    const adapter = createWebsitePersonAdapter(options());
    const founder = await adapter.lookup(
      { by: 'domain_name', domain: 'acme.test', full_name: 'Zoe Angstrom' },
      context(),
    );
    expect(founder.type === 'hit' && founder.candidates[0]?.fields).toMatchObject({
      title: 'Founder & Chair',
      company_name: 'Acme Widgets',
    });
    const byEmail = await adapter.lookup(
      { by: 'email', email: 'jose.garcia@acme.test', domain: 'acme.test' },
      context(),
    );
    expect(byEmail.type === 'hit' && byEmail.candidates[0]?.confidence).toBe(0.9);
  });

  it('never returns a namesake: another first name or an unknown email is a miss', async () => {
    const adapter = createWebsitePersonAdapter(options());
    expect(
      (await adapter.lookup({ by: 'domain_name', domain: 'acme.test', full_name: 'John Roe' }, context()))
        .type,
    ).toBe('miss');
    expect(
      (await adapter.lookup({ by: 'email', email: 'jane@acme.test', domain: 'acme.test' }, context())).type,
    ).toBe('miss');
  });

  it('shares one crawler with the company adapter: robots.txt is fetched once for both', async () => {
    const before = site.requests.length;
    const crawler = createWebsiteCrawler(options());
    await createWebsiteAdapter({ crawler }).lookup({ by: 'domain', domain: 'acme.test' }, context());
    await createWebsitePersonAdapter({ crawler }).lookup(
      { by: 'domain_name', domain: 'acme.test', full_name: 'Jane Roe' },
      context(),
    );
    expect(site.requests.slice(before).filter((r) => r.path === '/robots.txt')).toHaveLength(1);
  });

  it('normalises names for comparison', () => {
    expect(nameMatchKey('  Prof. Ánne-Marie   O’Neil ')).toBe('anne-marie o neil');
  });
});

describeAdapter('website_people', {
  create: () => createWebsitePersonAdapter(options()),
  hits: [
    { by: 'domain_name', domain: 'acme.test', full_name: 'Jane Roe' },
    { by: 'email', email: 'jose.garcia@acme.test', domain: 'acme.test' },
  ],
  misses: [
    { by: 'domain_name', domain: 'acme.test', full_name: 'Nobody Here' },
    { by: 'email', email: 'x@nosite.test', domain: 'nosite.test' },
  ],
  context: () => ({ fetch: guarded }),
});
