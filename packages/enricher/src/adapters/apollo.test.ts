import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DANA_WHITFIELD,
  describePaidProvider,
  emailQuery,
  type FakeProvider,
  fixture,
  isRecordLike,
  paidHit,
  providerContext,
  startFakeProvider,
} from '../testing/fake-provider.js';
import { createApolloAdapters } from './apollo.js';

const KEY = 'apollo-test-key';
let api: FakeProvider;

beforeAll(async () => {
  api = await startFakeProvider({
    'POST /api/v1/people/match': ({ headers, json }) => {
      if (headers['x-api-key'] !== KEY) return fixture('apollo', '401', 401);
      const body = isRecordLike(json) ? json : {};
      if (body.email === 'dana.whitfield@example.com') return fixture('apollo', 'people-match-200');
      if (body.linkedin_url === 'https://www.linkedin.com/in/dana-whitfield')
        return fixture('apollo', 'people-match-200');
      if (body.name === 'Lee Park' && body.domain === 'example.org')
        return fixture('apollo', 'people-match-locked-email');
      if (body.email === 'free-plan@example.com') return fixture('apollo', '403', 403);
      if (body.email === 'no-credits@example.com') return fixture('apollo', '422-credits', 422);
      if (body.email === 'too-fast@example.com')
        return fixture('apollo', '429', 429, { 'retry-after': '12' });
      if (body.email === 'broken@example.com') return fixture('apollo', '500', 503);
      return fixture('apollo', 'people-match-no-match');
    },
    'GET /api/v1/organizations/enrich': ({ url }) =>
      url.searchParams.get('domain') === 'example.com'
        ? fixture('apollo', 'organizations-enrich-200')
        : fixture('apollo', 'organizations-enrich-no-match'),
  });
});
afterAll(() => api.close());

const adapters = (apiKey = KEY) => createApolloAdapters({ apiKey, baseUrl: api.url });

describePaidProvider('apollo', adapters, { domain: 'example.org', full_name: 'Lee Park' });

describe('apollo: requests and documented answers', () => {
  it('People Enrichment: a JSON POST with the key in x-api-key, no paid reveals, the person mapped', async () => {
    const { outcome, request } = await api.lookup(
      adapters().person,
      emailQuery('dana.whitfield@example.com'),
    );
    expect(request?.method).toBe('POST');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['x-api-key']).toBe(KEY);
    expect(request?.json).toEqual({
      email: 'dana.whitfield@example.com',
      reveal_personal_emails: false,
      reveal_phone_number: false,
    });
    expect(outcome).toEqual(
      paidHit(0.85, {
        ...DANA_WHITFIELD,
        title: 'VP of Engineering',
        company_employee_count: 312,
        company_founded: 2012,
      }),
    );
  });

  it('a name at a domain is asked as name + domain, weaker confidence, and the locked-email placeholder is dropped', async () => {
    const { outcome, request } = await api.lookup(adapters().person, {
      by: 'domain_name',
      domain: 'example.org',
      full_name: 'Lee Park',
    });
    expect(request?.json).toMatchObject({ name: 'Lee Park', domain: 'example.org' });
    expect(outcome.type).toBe('hit');
    if (outcome.type !== 'hit') return;
    expect(outcome.candidates[0]?.confidence).toBe(0.7);
    expect(outcome.candidates[0]?.fields.email).toBeUndefined();
    expect(outcome.candidates[0]?.fields.location).toBe('United States');
  });

  it('a 200 with person null is an unbilled miss', async () => {
    expect(await adapters().person.lookup(emailQuery('nobody@example.com'), providerContext())).toEqual({
      type: 'miss',
      cost: 0,
    });
  });

  it('Organization Enrichment: technologies from both lists without repeats; an empty 200 is a miss', async () => {
    const outcome = await adapters().company.lookup(
      { by: 'domain', domain: 'example.com' },
      providerContext(),
    );
    expect(api.requests().at(-1)?.url.searchParams.get('domain')).toBe('example.com');
    expect(outcome).toEqual(
      paidHit(0.85, {
        name: 'Acme Cloud',
        domain: 'example.com',
        description: 'Acme Cloud runs managed Kubernetes for mid-sized software teams.',
        employee_count: 312,
        founded: 2012,
        industry: 'information technology & services',
        location: 'Austin, Texas, United States',
        technologies: ['Cloudflare DNS', 'Google Tag Manager', 'Hubspot', 'React'],
        social: {
          linkedin: 'https://www.linkedin.com/company/acmecloud',
          x: 'https://twitter.com/acmecloud',
          facebook: 'https://www.facebook.com/acmecloud',
        },
        logo: 'https://zenprospect-production.s3.amazonaws.com/uploads/pictures/acmecloud/picture',
      }),
    );
    expect(
      await adapters().company.lookup({ by: 'domain', domain: 'example.net' }, providerContext()),
    ).toEqual({
      type: 'miss',
      cost: 0,
    });
  });

  it('401 and 403 (not in the plan) are auth, a 422 about credits is quota, 429 carries Retry-After, 5xx upstream', async () => {
    const lookup = (address: string, apiKey = KEY) =>
      adapters(apiKey).person.lookup(emailQuery(address), providerContext());
    expect(await lookup('dana.whitfield@example.com', 'bad')).toMatchObject({
      type: 'error',
      cost: 0,
      error: { kind: 'auth', message: 'apollo: HTTP 401: Invalid access credentials.' },
    });
    expect(await lookup('free-plan@example.com')).toMatchObject({ error: { kind: 'auth' } });
    expect(await lookup('no-credits@example.com')).toMatchObject({ error: { kind: 'quota' } });
    expect(await lookup('too-fast@example.com')).toMatchObject({
      error: { kind: 'rate_limited', retryAfterSeconds: 12 },
    });
    expect(await lookup('broken@example.com')).toMatchObject({
      error: { kind: 'upstream', status: 503 },
    });
  });
});
