import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EnrichmentAdapter } from '../adapter.js';
import { createEnricher } from '../enricher.js';
import { createGuardedFetch } from '../fetch/guarded-fetch.js';
import { type FakeProvider, fixture, startFakeProvider } from '../testing/fake-provider.js';
import { createHunterAdapters } from './hunter.js';
import { createPeopleDataLabsAdapters } from './peopledatalabs.js';

// The paid adapters inside the real orchestrator: PDL first, Hunter second, both on loopback.
const DANA = 'dana.whitfield@example.com';
const NOW = Date.parse('2026-11-23T12:00:00Z');
let pdl: FakeProvider;
let hunter: FakeProvider;
let pdlRateLimited = false;

beforeAll(async () => {
  pdl = await startFakeProvider({
    'GET /v5/person/enrich': ({ url }) => {
      if (pdlRateLimited) return fixture('peopledatalabs', '429', 429, { 'retry-after': '60' });
      return url.searchParams.get('email') === DANA
        ? fixture('peopledatalabs', 'person-200')
        : fixture('peopledatalabs', '404', 404);
    },
    'GET /v5/company/enrich': () => fixture('peopledatalabs', 'company-200'),
  });
  hunter = await startFakeProvider({
    'GET /v2/people/find': ({ url }) =>
      url.searchParams.get('email') === DANA
        ? fixture('hunter', 'people-find-200')
        : fixture('hunter', '404', 404),
    'GET /v2/companies/find': () => fixture('hunter', 'companies-find-200'),
  });
});
afterAll(async () => {
  await Promise.all([pdl.close(), hunter.close()]);
});

function enricher() {
  const p = createPeopleDataLabsAdapters({ apiKey: 'k', baseUrl: pdl.url });
  const h = createHunterAdapters({ apiKey: 'k', baseUrl: hunter.url });
  return createEnricher({
    adapters: [p.person, h.person, p.company, h.company] as EnrichmentAdapter[],
    fetch: createGuardedFetch({ isAllowedAddress: (ip) => ip === '127.0.0.1' }),
    now: () => NOW,
  });
}

describe('paid providers in the waterfall', () => {
  it('PDL answers first; Hunter, with nothing left to add, is not called (nor billed); sources and seniority', async () => {
    const { match, adapters } = await enricher().enrichContact({ email: DANA });
    expect(adapters.map((report) => [report.adapter, report.status])).toEqual([
      ['peopledatalabs', 'hit'],
      ['hunter', 'skipped_filled'],
    ]);
    expect(hunter.requests().some((request) => request.url.pathname === '/v2/people/find')).toBe(false);
    expect(match).toMatchObject({
      full_name: 'Dana Whitfield',
      title: 'Vice President of Engineering',
      seniority: 'vp',
      email: DANA,
      profile_url: 'https://www.linkedin.com/in/dana-whitfield',
      company: { name: 'Acme Cloud', domain: 'example.com', employee_count: 312, founded: 2012 },
    });
    expect(match?.sources.title).toEqual({
      adapter: 'peopledatalabs',
      retrieved_at: new Date(NOW).toISOString(),
    });
    expect(match?.confidence).toBeGreaterThanOrEqual(0.9);
  });

  it('PDL rate limited: Hunter alone answers, and the report says why PDL did not', async () => {
    pdlRateLimited = true;
    try {
      const { match, adapters } = await enricher().enrichContact({ email: DANA });
      expect(adapters[0]).toMatchObject({
        adapter: 'peopledatalabs',
        status: 'error',
        error: 'rate_limited',
      });
      expect(match?.sources.title?.adapter).toBe('hunter');
      // Hunter's person gives no exact head-count; the lookup of the person's company domain does.
      expect(match?.company?.employee_count).toBe(312);
      expect(match?.sources.company_employee_count?.adapter).toBe('peopledatalabs_company');
    } finally {
      pdlRateLimited = false;
    }
  });

  it('a company merges PDL (first) with what only Hunter has: technologies and logo', async () => {
    const { match } = await enricher().enrichCompany({ domain: 'https://www.example.com/about' });
    expect(match).toMatchObject({
      name: 'Acme Cloud',
      domain: 'example.com',
      employee_count: 312,
      industry: 'computer software',
      technologies: ['cloudflare', 'google-tag-manager', 'hubspot', 'react'],
      logo: 'https://logos.hunter.io/example.com',
    });
    expect(match?.sources.name?.adapter).toBe('peopledatalabs_company');
    expect(match?.sources.technologies?.adapter).toBe('hunter_company');
  });
});
