import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DANA_WHITFIELD,
  describePaidProvider,
  type FakeProvider,
  fixture,
  loopbackFetch,
  PROVIDER_TEST_NOW,
  paidHit,
  providerContext,
  startFakeProvider,
} from '../testing/fake-provider.js';
import { createPeopleDataLabsAdapters } from './peopledatalabs.js';

const KEY = 'pdl-test-key';
let api: FakeProvider;

beforeAll(async () => {
  api = await startFakeProvider({
    'GET /v5/person/enrich': ({ url, headers }) => {
      if (headers['x-api-key'] !== KEY) return fixture('peopledatalabs', '401', 401);
      const q = url.searchParams;
      if (q.get('email') === 'dana.whitfield@example.com') return fixture('peopledatalabs', 'person-200');
      if (q.get('profile') === 'https://www.linkedin.com/in/dana-whitfield')
        return fixture('peopledatalabs', 'person-200');
      if (q.get('name') === 'Lee Park' && q.get('company') === 'example.org')
        return fixture('peopledatalabs', 'person-200-plan-hides-contacts');
      if (q.get('email') === 'out-of-credits@example.com') return fixture('peopledatalabs', '402', 402);
      if (q.get('email') === 'too-fast@example.com')
        return fixture('peopledatalabs', '429', 429, { 'retry-after': '30' });
      if (q.get('email') === 'reset@example.com')
        return fixture('peopledatalabs', '429', 429, {
          'x-ratelimit-reset': String(PROVIDER_TEST_NOW / 1000 + 42),
        });
      if (q.get('email') === 'broken@example.com') return fixture('peopledatalabs', '500', 500);
      if (q.get('email') === 'bad@example.com') return fixture('peopledatalabs', '400', 400);
      if (q.get('email') === 'slow@example.com') return 'hang';
      return fixture('peopledatalabs', '404', 404);
    },
    'GET /v5/company/enrich': ({ url }) =>
      url.searchParams.get('website') === 'example.com'
        ? fixture('peopledatalabs', 'company-200')
        : fixture('peopledatalabs', '404', 404),
  });
});
afterAll(() => api.close());

// describeAdapter's contexts need the clock too: the 429 fixture's reset is relative to it.
const loopback = () => ({ ...loopbackFetch(), now: () => PROVIDER_TEST_NOW });
const adapters = (options: { timeoutMs?: number; apiKey?: string } = {}) =>
  createPeopleDataLabsAdapters({ apiKey: KEY, baseUrl: api.url, ...options });

describePaidProvider('peopledatalabs', adapters, { domain: 'example.org', full_name: 'Lee Park' }, loopback);

describe('people data labs: requests and documented answers', () => {
  it('sends the documented query with the key in X-Api-Key (never in the URL) and maps the record', async () => {
    const { outcome, request } = await api.lookup(adapters().person, {
      by: 'email',
      email: 'dana.whitfield@example.com',
      domain: 'example.com',
    });
    expect(request?.method).toBe('GET');
    expect(request?.url.pathname).toBe('/v5/person/enrich');
    expect(request?.url.searchParams.get('email')).toBe('dana.whitfield@example.com');
    expect(request?.url.searchParams.get('min_likelihood')).toBe('6');
    expect(request?.url.searchParams.get('titlecase')).toBe('true');
    expect(request?.url.search).not.toContain(KEY);
    expect(request?.headers['x-api-key']).toBe(KEY);
    expect(outcome).toEqual(
      // likelihood 9 of 10
      paidHit(0.9, {
        ...DANA_WHITFIELD,
        title: 'Vice President of Engineering',
        company_employee_count: 312,
        company_founded: 2012,
      }),
    );
  });

  it('asks by name and company domain, and drops contact fields the plan answers with `true`', async () => {
    const { outcome, request } = await api.lookup(adapters().person, {
      by: 'domain_name',
      domain: 'example.org',
      full_name: 'Lee Park',
    });
    const params = request?.url.searchParams;
    expect(params?.get('name')).toBe('Lee Park');
    expect(params?.get('company')).toBe('example.org');
    expect(outcome.type).toBe('hit');
    if (outcome.type !== 'hit') return;
    const fields = outcome.candidates[0]?.fields;
    expect(fields?.email).toBeUndefined(); // work_email: true is not an address
    expect(fields?.company_domain).toBe('example.org'); // from www.example.org
    expect(fields?.profile_url).toBe('https://www.linkedin.com/in/leepark');
    expect(fields).not.toHaveProperty('location'); // null stays absent
    expect(outcome.candidates[0]?.confidence).toBe(0.7);
  });

  it('maps the company record (top level, not under data)', async () => {
    const outcome = await adapters().company.lookup(
      { by: 'domain', domain: 'example.com' },
      providerContext(),
    );
    expect(api.requests().at(-1)?.url.searchParams.get('website')).toBe('example.com');
    expect(outcome).toEqual(
      paidHit(0.8, {
        name: 'Acme Cloud',
        domain: 'example.com',
        description: 'Acme Cloud runs managed Kubernetes for mid-sized software teams.',
        employee_count: 312,
        founded: 2012,
        industry: 'computer software',
        location: 'austin, texas, united states',
        social: {
          linkedin: 'https://linkedin.com/company/acmecloud',
          x: 'https://twitter.com/acmecloud',
          facebook: 'https://facebook.com/acmecloud',
        },
      }),
    );
  });

  it('a 404 is an unbilled miss', async () => {
    const { person } = adapters();
    expect(person.billsMisses).toBe(false);
    const outcome = await person.lookup(
      { by: 'email', email: 'nobody@example.com', domain: 'example.com' },
      providerContext(),
    );
    expect(outcome).toEqual({ type: 'miss', cost: 0 });
  });

  it('maps 401, 402, 429 (Retry-After or x-ratelimit-reset), 400 and 5xx to typed errors, none billed', async () => {
    const lookup = (address: string, apiKey = KEY) =>
      adapters({ apiKey }).person.lookup(
        { by: 'email', email: address, domain: 'example.com' },
        providerContext(),
      );
    expect(await lookup('dana.whitfield@example.com', 'wrong-key')).toMatchObject({
      type: 'error',
      cost: 0,
      error: { kind: 'auth', message: 'peopledatalabs: HTTP 401: Request needs a valid API key' },
    });
    expect(await lookup('out-of-credits@example.com')).toMatchObject({
      type: 'error',
      cost: 0,
      error: { kind: 'quota' },
    });
    expect(await lookup('too-fast@example.com')).toMatchObject({
      type: 'error',
      cost: 0,
      error: { kind: 'rate_limited', retryAfterSeconds: 30 },
    });
    expect(await lookup('reset@example.com')).toMatchObject({
      error: { kind: 'rate_limited', retryAfterSeconds: 42 },
    });
    expect(await lookup('bad@example.com')).toMatchObject({ error: { kind: 'upstream', status: 400 } });
    expect(await lookup('broken@example.com')).toMatchObject({
      error: { kind: 'upstream', status: 500 },
    });
  });

  it('gives up after timeoutMs with a timeout error', async () => {
    // The server never answers: only the timeout can end the lookup (no timing asserted).
    const outcome = await adapters({ timeoutMs: 150 }).person.lookup(
      { by: 'email', email: 'slow@example.com', domain: 'example.com' },
      providerContext(),
    );
    expect(outcome).toMatchObject({ type: 'error', error: { kind: 'timeout' } });
  });

  it('the person and company adapters have distinct ids (an enricher refuses two adapters with one id)', () => {
    const { person, company } = adapters();
    expect([person.id, company.id]).toEqual(['peopledatalabs', 'peopledatalabs_company']);
  });

  it('refuses bad options at construction', () => {
    expect(() => createPeopleDataLabsAdapters({ apiKey: '' })).toThrow(/apiKey must be a non-empty string/);
    expect(() => createPeopleDataLabsAdapters({ apiKey: 'k', baseUrl: 'ftp://x' })).toThrow(/baseUrl/);
    expect(() => createPeopleDataLabsAdapters({ apiKey: 'k', minLikelihood: 11 })).toThrow(/minLikelihood/);
  });
});
