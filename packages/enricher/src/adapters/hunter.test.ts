import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DANA_WHITFIELD,
  describePaidProvider,
  emailQuery,
  type FakeProvider,
  fixture,
  paidHit,
  providerContext,
  startFakeProvider,
} from '../testing/fake-provider.js';
import { createHunterAdapters } from './hunter.js';

const KEY = 'hunter-test-key';
let api: FakeProvider;

beforeAll(async () => {
  api = await startFakeProvider({
    'GET /v2/people/find': ({ url, headers }) => {
      if (headers['x-api-key'] !== KEY) return fixture('hunter', '401', 401);
      const q = url.searchParams;
      if (q.get('email') === 'dana.whitfield@example.com' || q.get('linkedin_handle') === 'dana-whitfield')
        return fixture('hunter', 'people-find-200');
      if (q.get('email') === 'claimed@example.com') return fixture('hunter', '451', 451);
      if (q.get('email') === 'too-fast@example.com') return fixture('hunter', '403', 403);
      if (q.get('email') === 'month-used@example.com') return fixture('hunter', '429', 429);
      if (q.get('email') === 'broken@example.com') return fixture('hunter', '500', 502);
      return fixture('hunter', '404', 404);
    },
    'GET /v2/email-finder': ({ url }) => {
      const q = url.searchParams;
      if (q.get('domain') === 'example.com' && q.get('full_name') === 'Dana Whitfield')
        return fixture('hunter', 'email-finder-200');
      if (q.get('domain') === 'nomx.example') return fixture('hunter', '400', 400);
      return fixture('hunter', 'email-finder-no-email');
    },
    'GET /v2/companies/find': ({ url }) =>
      url.searchParams.get('domain') === 'example.com'
        ? fixture('hunter', 'companies-find-200')
        : fixture('hunter', '404', 404),
  });
});
afterAll(() => api.close());

const adapters = (apiKey = KEY) => createHunterAdapters({ apiKey, baseUrl: api.url });

describePaidProvider('hunter', adapters, { domain: 'example.com', full_name: 'Dana Whitfield' });

describe('hunter: requests and documented answers', () => {
  it('Email Enrichment by address: the key in X-API-KEY, the person mapped', async () => {
    const { outcome, request } = await api.lookup(
      adapters().person,
      emailQuery('dana.whitfield@example.com'),
    );
    expect(request?.url.pathname).toBe('/v2/people/find');
    expect(request?.url.searchParams.get('email')).toBe('dana.whitfield@example.com');
    expect(request?.url.searchParams.has('api_key')).toBe(false);
    expect(request?.headers['x-api-key']).toBe(KEY);
    expect(outcome).toEqual(
      paidHit(0.9, {
        ...DANA_WHITFIELD,
        title: 'Vice President of Engineering',
      }),
    );
  });

  it('a profile URL is asked as its LinkedIn handle', async () => {
    const { request } = await api.lookup(adapters().person, {
      by: 'profile_url',
      profile_url: 'https://www.linkedin.com/in/dana-whitfield',
    });
    expect(request?.url.searchParams.get('linkedin_handle')).toBe('dana-whitfield');
  });

  it('Email Finder for a name at a domain: score 94 → confidence 0.94; no address found → unbilled miss', async () => {
    const { outcome: hit, request } = await api.lookup(adapters().person, {
      by: 'domain_name',
      domain: 'example.com',
      full_name: 'Dana Whitfield',
    });
    const params = request?.url.searchParams;
    expect(params?.get('domain')).toBe('example.com');
    expect(params?.get('full_name')).toBe('Dana Whitfield');
    expect(hit).toMatchObject({
      type: 'hit',
      cost: 1,
      candidates: [
        {
          confidence: 0.94,
          fields: {
            email: 'dana.whitfield@example.com',
            title: 'VP Engineering',
            company_domain: 'example.com',
          },
        },
      ],
    });
    const miss = await adapters().person.lookup(
      { by: 'domain_name', domain: 'example.com', full_name: 'Nobody Known' },
      providerContext(),
    );
    expect(miss).toEqual({ type: 'miss', cost: 0 });
  });

  it('maps Company Enrichment; a head-count range is not an employee count', async () => {
    const outcome = await adapters().company.lookup(
      { by: 'domain', domain: 'example.com' },
      providerContext(),
    );
    expect(outcome).toEqual(
      paidHit(0.9, {
        name: 'Acme Cloud',
        domain: 'example.com',
        description: 'Acme Cloud runs managed Kubernetes for mid-sized software teams.',
        founded: 2012,
        industry: 'Internet Software & Services',
        location: 'Austin, Texas, United States',
        technologies: ['cloudflare', 'google-tag-manager', 'hubspot', 'react'],
        social: {
          linkedin: 'https://www.linkedin.com/company/acmecloud',
          x: 'https://x.com/acmecloud',
          facebook: 'https://www.facebook.com/acmecloud',
        },
        logo: 'https://logos.hunter.io/example.com',
      }),
    );
  });

  it('451 claimed_email is a miss (the owner asked to stop processing): nothing kept, nothing billed', async () => {
    expect(await adapters().person.lookup(emailQuery('claimed@example.com'), providerContext())).toEqual({
      type: 'miss',
      cost: 0,
    });
  });

  it("Hunter's own status meanings: 401 auth, 403 rate limit, 429 monthly quota, 400/5xx upstream", async () => {
    const lookup = (address: string, apiKey = KEY) =>
      adapters(apiKey).person.lookup(emailQuery(address), providerContext());
    expect(await lookup('dana.whitfield@example.com', 'bad')).toMatchObject({
      type: 'error',
      cost: 0,
      error: { kind: 'auth', message: 'hunter: HTTP 401: No user found for the API key supplied' },
    });
    expect(await lookup('too-fast@example.com')).toMatchObject({
      error: { kind: 'rate_limited', retryAfterSeconds: null },
    });
    expect(await lookup('month-used@example.com')).toMatchObject({ error: { kind: 'quota' } });
    expect(await lookup('broken@example.com')).toMatchObject({
      error: { kind: 'upstream', status: 502 },
    });
    const invalid = await adapters().person.lookup(
      { by: 'domain_name', domain: 'nomx.example', full_name: 'Dana Whitfield' },
      providerContext(),
    );
    expect(invalid).toMatchObject({
      error: {
        kind: 'upstream',
        status: 400,
        message: 'hunter: HTTP 400: You are missing the domain parameter',
      },
    });
  });
});
