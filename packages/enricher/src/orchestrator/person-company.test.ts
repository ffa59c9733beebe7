import { describe, expect, it } from 'vitest';
import type {
  CompanyFields,
  CompanyQuery,
  EnrichmentAdapter,
  PersonFields,
  PersonQuery,
} from '../adapter.js';
import { createEnricher, type EnricherOptions } from '../enricher.js';

// A person's company block through the real orchestrator: small adapters that answer from a
// table and count their calls (real adapters of the contract, not mocks of one).
const NOW = Date.UTC(2026, 10, 27, 12);
const AT = new Date(NOW).toISOString();

/** What both fake adapters declare besides their fields: `cost` a call, misses unbilled. */
function declared(cost: number) {
  return { cost, billsMisses: false, ttl: { hitSeconds: 3600, missSeconds: 60 }, concurrency: 4 };
}

function people(answer: (query: PersonQuery) => Partial<PersonFields> | null, cost = 0) {
  const calls: PersonQuery[] = [];
  const adapter: EnrichmentAdapter<'person'> = {
    id: 'people',
    kind: 'person',
    accepts: ['email', 'domain_name', 'profile_url'],
    provides: ['full_name', 'title', 'email', 'company_name', 'company_domain', 'company_employee_count'],
    ...declared(cost),
    async lookup(query) {
      calls.push(query);
      const fields = answer(query);
      return fields
        ? { type: 'hit', cost, candidates: [{ fields, confidence: 0.9 }] }
        : { type: 'miss', cost };
    },
  };
  return Object.assign(adapter, { calls });
}

function companies(id: string, table: Record<string, Partial<CompanyFields>>, cost = 0) {
  const calls: CompanyQuery[] = [];
  const adapter: EnrichmentAdapter<'company'> = {
    id,
    kind: 'company',
    accepts: ['domain'],
    provides: ['name', 'domain', 'employee_count', 'founded', 'technologies', 'social', 'language', 'logo'],
    ...declared(cost),
    async lookup(query) {
      calls.push(query);
      const fields = table[query.domain];
      if (!fields) return { type: 'miss', cost };
      return {
        type: 'hit',
        cost,
        candidates: [
          {
            fields: { domain: query.domain, ...fields },
            confidence: 0.9,
            fieldConfidence: { founded: 0.6 },
            fieldEvidence: { founded: 'about page text (https://acme.com/about)' },
          },
        ],
      };
    },
  };
  return Object.assign(adapter, { calls });
}

const ACME: Partial<CompanyFields> = {
  name: 'Acme Widgets',
  employee_count: 120,
  founded: 2004,
  technologies: ['HubSpot'],
  social: { linkedin: 'https://www.linkedin.com/company/acme' },
  language: 'en',
};

const dana = (query: PersonQuery): Partial<PersonFields> | null =>
  query.by === 'email' && query.email === 'dana@acme.com'
    ? { full_name: 'Dana Roe', title: 'VP Sales', email: 'dana@acme.com', company_domain: 'acme.com' }
    : query.by === 'domain_name' && query.full_name === 'Dana Roe'
      ? { full_name: 'Dana Roe', title: 'VP Sales', company_domain: query.domain }
      : null;

function enricher(adapters: EnrichmentAdapter[], extra: Partial<EnricherOptions> = {}) {
  return createEnricher({ adapters, now: () => NOW, ...extra });
}

describe("a person's company, from the company lookup for its domain", () => {
  it('fills the company block with every company field, each with its source (`company_<field>`)', async () => {
    const site = companies('site', { 'acme.com': ACME });
    const { match, companyAdapters, adapters } = await enricher([
      people(dana),
      site,
    ] as EnrichmentAdapter[]).enrichContact({ email: 'dana@acme.com' });
    expect(match?.company).toEqual({
      name: 'Acme Widgets',
      domain: 'acme.com',
      employee_count: 120,
      founded: 2004,
      technologies: ['HubSpot'],
      description: null,
      industry: null,
      location: null,
      social: { linkedin: 'https://www.linkedin.com/company/acme' },
      language: 'en',
      logo: null,
    });
    expect(match?.sources.company_founded).toEqual({
      adapter: 'site',
      retrieved_at: AT,
      evidence: 'about page text (https://acme.com/about)',
    });
    expect(match?.sources.company_employee_count).toEqual({ adapter: 'site', retrieved_at: AT });
    expect(match?.sources.company_domain).toEqual({ adapter: 'people', retrieved_at: AT });
    // The company adapters are reported apart from the person's (their ids may be the same).
    expect(adapters.map((report) => report.adapter)).toEqual(['people']);
    expect(companyAdapters).toEqual([{ adapter: 'site', status: 'hit', cost: 0 }]);
    // The person's confidence is about the person: the company's facts do not raise it.
    expect(match?.confidence).toBe(0.9);
  });

  it('one company lookup per domain within its TTL, shared with enrichCompany', async () => {
    const site = companies('site', { 'acme.com': ACME });
    const instance = enricher([people(dana), site] as EnrichmentAdapter[]);
    await instance.enrichCompany({ domain: 'acme.com' });
    const first = await instance.enrichContact({ email: 'dana@acme.com' });
    const second = await instance.enrichContact({ domain: 'acme.com', full_name: 'Dana Roe' });
    expect(site.calls).toEqual([{ by: 'domain', domain: 'acme.com' }]);
    expect(first.companyAdapters?.[0]?.status).toBe('cached_hit');
    expect(second.match?.company).toMatchObject({ name: 'Acme Widgets', domain: 'acme.com', founded: 2004 });
  });

  it('the company domain a person source states is looked up; an email’s domain alone is not', async () => {
    const site = companies('site', { 'acme.com': ACME, 'gmail.com': { name: 'Gmail' } });
    const person = people((query) =>
      query.by === 'email' ? { full_name: 'Dana Roe', email: query.email, title: 'Founder' } : dana(query),
    );
    const instance = enricher([person, site] as EnrichmentAdapter[]);
    const byName = await instance.enrichContact({ domain: 'www.acme.com', full_name: 'Dana Roe' });
    expect(byName.match?.company).toMatchObject({ name: 'Acme Widgets', domain: 'acme.com' });
    // No source said where a gmail.com address works: nothing is looked up, nothing guessed.
    const personal = await instance.enrichContact({ email: 'dana.roe@gmail.com' });
    expect(personal.match?.full_name).toBe('Dana Roe');
    expect(personal.match?.company).toBeNull();
    expect(personal.companyAdapters).toBeUndefined();
    expect(site.calls.map((query) => query.domain)).toEqual(['acme.com']);
  });

  it('the company lookup wins a field; what the person’s sources say fills what it lacks', async () => {
    const person = people(() => ({
      full_name: 'Dana Roe',
      email: 'dana@acme.com',
      company_name: 'ACME Inc',
      company_domain: 'https://www.acme.com/',
      company_employee_count: 150,
    }));
    const site = companies('site', { 'acme.com': { name: 'Acme Widgets', technologies: ['HubSpot'] } });
    const { match } = await enricher([person, site] as EnrichmentAdapter[]).enrichContact({
      email: 'dana@acme.com',
    });
    expect(match?.company).toMatchObject({
      name: 'Acme Widgets',
      domain: 'acme.com',
      employee_count: 150,
      technologies: ['HubSpot'],
    });
    expect(match?.sources.company_name?.adapter).toBe('site');
    expect(match?.sources.company_employee_count?.adapter).toBe('people');
  });

  it('a company lookup that finds nothing leaves the person’s own company facts; a person miss looks up no company', async () => {
    const site = companies('site', {});
    const instance = enricher([people(dana), site] as EnrichmentAdapter[]);
    const { match, companyAdapters } = await instance.enrichContact({ email: 'dana@acme.com' });
    expect(match?.company).toMatchObject({ name: null, domain: 'acme.com', founded: null, technologies: [] });
    expect(companyAdapters).toEqual([{ adapter: 'site', status: 'miss', cost: 0 }]);
    const nobody = await instance.enrichContact({ email: 'nobody@acme.com' });
    expect(nobody.match).toBeNull();
    expect(nobody.companyAdapters).toBeUndefined();
    expect(site.calls).toHaveLength(1);
  });

  it('the company lookup spends only what is left of the call’s budget, and its cost is the call’s', async () => {
    const paid = companies('paid', { 'acme.com': ACME }, 2);
    const instance = enricher([people(dana, 1), paid] as EnrichmentAdapter[]);
    const tight = await instance.enrichContact({ email: 'dana@acme.com' }, { budget: 2 });
    expect(tight.companyAdapters).toEqual([{ adapter: 'paid', status: 'skipped_budget', cost: 0 }]);
    expect(tight.cost).toBe(1);
    const enough = await instance.enrichContact({ domain: 'acme.com', full_name: 'Dana Roe' }, { budget: 3 });
    expect(enough.cost).toBe(3);
    expect(enough.match?.company?.name).toBe('Acme Widgets');
  });
});
