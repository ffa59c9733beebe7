import { type CompanyQuery, createEnricher, type EnrichmentAdapter, type PersonQuery } from '@svc/enricher';
import { afterEach, describe, expect, it } from 'vitest';
import { oneHit, testAdapter } from '../testing/test-adapter.js';
import { createTestServer, type TestServer } from '../testing/test-server.js';

// A real enricher (query validation, waterfall, identity gate, result shape) over one in-memory
// "dataset" of each kind: the routes are under test here, not the adapters.
const lookups: string[] = [];
const people = testAdapter<'person'>({
  id: 'people',
  kind: 'person',
  accepts: ['email', 'domain_name', 'profile_url'],
  provides: ['full_name', 'title', 'email', 'company_name', 'company_domain', 'company_employee_count'],
  async lookup(query: PersonQuery) {
    lookups.push(JSON.stringify(query));
    if (query.by !== 'email' || query.email !== 'dana@acme.com') return { type: 'miss', cost: 0 };
    return oneHit({
      full_name: 'Dana Whitfield',
      title: 'VP of Engineering',
      email: 'dana@acme.com',
      company_name: 'Acme',
      company_domain: 'acme.com',
      company_employee_count: 312,
    });
  },
});
const companies = testAdapter<'company'>({
  id: 'companies',
  kind: 'company',
  accepts: ['domain'],
  provides: ['name', 'domain', 'founded', 'technologies'],
  async lookup(query: CompanyQuery) {
    lookups.push(JSON.stringify(query));
    if (query.domain !== 'acme.com') return { type: 'miss', cost: 0 };
    return oneHit({ name: 'Acme', domain: 'acme.com', founded: 2010, technologies: ['HubSpot'] });
  },
});

let server: TestServer;
afterEach(async () => {
  await server?.app.close();
  lookups.length = 0;
});

async function start(withEnricher = true, planId = 'free') {
  server = await createTestServer({
    ...(withEnricher
      ? {
          enricher: createEnricher({
            adapters: [people, companies] as EnrichmentAdapter[],
            now: () => server.clock.now, // the server's manual clock
          }),
        }
      : {}),
    // A plan of the operator's that bills company misses (configured as in svc.json).
    options: { logLevel: 'silent', plans: { strict: { name: 'Strict', bill_company_misses: true } } },
  });
  return server.account(planId);
}

const post = (url: string, key: string, body: unknown) => server.call('POST', url, key, body);

async function usage(key: string) {
  const response = await server.call('GET', '/v2/usage', key);
  return response.json() as { lines: Array<{ endpoint: string; calls: number; units: number }> };
}

describe('POST /v2/enrich/contact', () => {
  it('200 { person } with the spec fields, seniority and sources; 204 with no body on no match, both billed', async () => {
    const { liveKey } = await start();
    const found = await post('/v2/enrich/contact', liveKey.secret, { email: 'Dana@ACME.com' });
    expect(found.statusCode).toBe(200);
    const { person } = found.json();
    expect(person).toMatchObject({
      full_name: 'Dana Whitfield',
      title: 'VP of Engineering',
      seniority: 'vp',
      // The person's employee count; the founding year and technologies from the company lookup.
      company: {
        name: 'Acme',
        domain: 'acme.com',
        employee_count: 312,
        founded: 2010,
        technologies: ['HubSpot'],
      },
      email: 'dana@acme.com',
    });
    expect(person.confidence).toBeGreaterThan(0.5);
    expect(person.sources.title).toEqual({ adapter: 'people', retrieved_at: '2026-11-23T12:00:00.000Z' });

    const missing = await post('/v2/enrich/contact', liveKey.secret, {
      domain: 'https://www.acme.com/team',
      full_name: 'No Body',
    });
    expect(missing.statusCode).toBe(204);
    expect(missing.body).toBe('');
    // The enricher got the normalised query (registrable domain, collapsed name).
    expect(lookups).toContain(
      JSON.stringify({ by: 'domain_name', domain: 'acme.com', full_name: 'No Body' }),
    );
    expect((await usage(liveKey.secret)).lines).toContainEqual({
      endpoint: 'enrich_contact',
      calls: 2,
      units: 2,
    });
  });

  it('a body of none of the three forms is 400 invalid_request naming the field; unknown fields too', async () => {
    const { liveKey } = await start();
    const noName = await post('/v2/enrich/contact', liveKey.secret, { domain: 'acme.com' });
    expect(noName.statusCode).toBe(400);
    expect(noName.json().error).toMatchObject({ code: 'invalid_request' });
    expect(noName.json().error.message).toContain('full_name');
    const unknown = await post('/v2/enrich/contact', liveKey.secret, { mail: 'dana@acme.com' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error.message).toContain('mail');
    expect(lookups).toEqual([]);
  });
});

describe('POST /v2/enrich/company', () => {
  it('200 { company } from any URL on the domain; 204 on no match is not billed', async () => {
    const { liveKey } = await start();
    const found = await post('/v2/enrich/company', liveKey.secret, { domain: 'https://shop.acme.com/x' });
    expect(found.statusCode).toBe(200);
    expect(found.json().company).toMatchObject({
      name: 'Acme',
      domain: 'acme.com',
      founded: 2010,
      technologies: ['HubSpot'],
      sources: { name: { adapter: 'companies' } },
    });
    const missing = await post('/v2/enrich/company', liveKey.secret, { domain: 'nobody-here.com' });
    expect(missing.statusCode).toBe(204);
    expect(missing.body).toBe('');
    expect((await usage(liveKey.secret)).lines).toContainEqual({
      endpoint: 'enrich_company',
      calls: 1,
      units: 1,
    });
  });

  it('a plan with bill_company_misses bills the 204 like a 200; contact 204s are billed on every plan', async () => {
    const { liveKey } = await start(true, 'strict');
    expect((await post('/v2/enrich/company', liveKey.secret, { domain: 'acme.com' })).statusCode).toBe(200);
    const missing = await post('/v2/enrich/company', liveKey.secret, { domain: 'nobody-here.com' });
    expect(missing.statusCode).toBe(204);
    expect(missing.headers['x-quota-remaining']).toBe('998');
    const contactMiss = await post('/v2/enrich/contact', liveKey.secret, { email: 'nobody@acme.com' });
    expect(contactMiss.statusCode).toBe(204);
    expect((await usage(liveKey.secret)).lines).toEqual([
      { endpoint: 'enrich_company', calls: 2, units: 2 },
      { endpoint: 'enrich_contact', calls: 1, units: 1 },
    ]);
  });
});

describe('test keys and a server without an enricher', () => {
  it('test keys get the sandbox (magic `match` inputs, no adapter of the live enricher asked), never billed', async () => {
    const { testKey, liveKey } = await start();
    const person = await post('/v2/enrich/contact', testKey.secret, { email: 'match@acme.com' });
    expect(person.statusCode).toBe(200);
    expect(person.json().person).toMatchObject({
      full_name: 'Sandbox Match',
      seniority: 'vp',
      company: { domain: 'acme.com' },
    });
    expect((await post('/v2/enrich/contact', testKey.secret, { email: 'dana@acme.com' })).statusCode).toBe(
      204,
    );
    expect(
      (await post('/v2/enrich/company', testKey.secret, { domain: 'match.io' })).json().company,
    ).toMatchObject({
      domain: 'match.io',
      name: 'Sandbox Company',
    });
    expect((await post('/v2/enrich/company', testKey.secret, { domain: 'acme.com' })).statusCode).toBe(204);
    expect(lookups).toEqual([]);
    expect((await usage(liveKey.secret)).lines).toEqual([]);
  });

  it('live keys on a server with no enricher: 500 internal_error saying so', async () => {
    const { liveKey } = await start(false);
    const response = await post('/v2/enrich/company', liveKey.secret, { domain: 'acme.com' });
    expect(response.statusCode).toBe(500);
    expect(response.json().error).toMatchObject({ code: 'internal_error' });
    expect(response.json().error.message).toContain('no enricher configured');
  });
});
