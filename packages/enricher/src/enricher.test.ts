import { ServiceError } from '@svc/core';
import { describe, expect, it } from 'vitest';
import type {
  AdapterKind,
  Candidate,
  EnrichmentAdapter,
  FieldsOf,
  LookupOutcome,
  QueryOf,
} from './adapter.js';
import { createMemoryCache } from './cache/memory.js';
import { type AnyEnrichmentAdapter, createEnricher, type EnricherOptions } from './enricher.js';
import { createMemorySuppression } from './privacy/suppression.js';

// Small in-test adapters implementing the real contract: each answers from a table by query,
// counts its calls and how many run at once. They are real adapters, not mocks of one.
interface TestAdapter<K extends AdapterKind> extends EnrichmentAdapter<K> {
  calls: QueryOf<K>[];
  maxInFlight: number;
}

function adapter<K extends AdapterKind>(
  kind: K,
  id: string,
  answer: (query: QueryOf<K>, signal: AbortSignal) => LookupOutcome<K> | Promise<LookupOutcome<K>>,
  extra: Partial<EnrichmentAdapter<K>> = {},
): TestAdapter<K> {
  let inFlight = 0;
  const self: TestAdapter<K> = {
    id,
    kind,
    accepts: kind === 'person' ? ['email', 'domain_name', 'profile_url'] : ['domain'],
    provides: (kind === 'person'
      ? ['full_name', 'title', 'email', 'profile_url', 'location', 'company_name', 'company_domain']
      : [
          'name',
          'domain',
          'description',
          'employee_count',
          'technologies',
        ]) as EnrichmentAdapter<K>['provides'],
    cost: 0,
    billsMisses: false,
    ttl: { hitSeconds: 3600, missSeconds: 60 },
    concurrency: 4,
    calls: [],
    maxInFlight: 0,
    async lookup(query, context) {
      self.calls.push(query);
      inFlight++;
      self.maxInFlight = Math.max(self.maxInFlight, inFlight);
      try {
        return await answer(query, context.signal);
      } finally {
        inFlight--;
      }
    },
    ...extra,
  };
  return self;
}

const hit = <K extends AdapterKind>(
  fields: Partial<FieldsOf<K>>,
  confidence = 0.9,
  cost = 0,
): LookupOutcome<K> => ({
  type: 'hit',
  candidates: [{ fields, confidence } as Candidate<K>],
  cost,
});
const miss = { type: 'miss', cost: 0 } as const;
const JANE = { email: 'jane@acme.com', full_name: 'Jane Doe', company_domain: 'acme.com' };

function clock(start = Date.UTC(2026, 10, 23, 12)) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

function enricher(adapters: AnyEnrichmentAdapter[], extra: Partial<EnricherOptions> = {}) {
  const time = clock();
  const cache = createMemoryCache();
  const suppression = createMemorySuppression();
  const instance = createEnricher({ adapters, cache, suppression, now: time.now, ...extra });
  return { instance, time, cache, suppression };
}

describe('createEnricher: waterfall and sources', () => {
  it('fills each field from the first adapter that has it, keeping each field’s source', async () => {
    const first = adapter('person', 'first', () => hit({ ...JANE, title: 'VP of Sales' }));
    const second = adapter('person', 'second', () =>
      hit({ ...JANE, title: 'Intern', location: 'Berlin' }, 0.8),
    );
    const { instance, time } = enricher([first, second]);
    const { match, adapters } = await instance.enrichContact({ email: 'Jane@Acme.com' });
    expect(match?.title).toBe('VP of Sales');
    expect(match?.seniority).toBe('vp');
    expect(match?.location).toBe('Berlin');
    expect(match?.company).toEqual({
      name: null,
      domain: 'acme.com',
      employee_count: null,
      founded: null,
      technologies: [],
      description: null,
      industry: null,
      location: null,
      social: {},
      language: null,
      logo: null,
    });
    const at = new Date(time.now()).toISOString();
    expect(match?.sources.title).toEqual({ adapter: 'first', retrieved_at: at });
    expect(match?.sources.location).toEqual({ adapter: 'second', retrieved_at: at });
    expect(adapters.map((a) => [a.adapter, a.status])).toEqual([
      ['first', 'hit'],
      ['second', 'hit'],
    ]);
  });

  it('skips an adapter whose every field is already filled', async () => {
    const first = adapter('person', 'first', () => hit({ ...JANE, title: 'CTO' }));
    const narrow = adapter('person', 'narrow', () => hit({ ...JANE, title: 'CEO' }), { provides: ['title'] });
    const { instance } = enricher([first, narrow]);
    const { adapters } = await instance.enrichContact({ email: 'jane@acme.com' });
    expect(adapters[1]).toMatchObject({ adapter: 'narrow', status: 'skipped_filled' });
    expect(narrow.calls).toHaveLength(0);
  });

  it('only asks adapters of the kind that accept the query form', async () => {
    const emailOnly = adapter('person', 'email_only', () => hit(JANE), { accepts: ['email'] });
    const company = adapter('company', 'company', () => hit({ name: 'Acme' }));
    const { instance } = enricher([emailOnly, company]);
    await instance.enrichContact({ profile_url: 'linkedin.com/in/jane' });
    expect(emailOnly.calls).toHaveLength(0);
    expect(company.calls).toHaveLength(0);
  });
});

describe('identity gate', () => {
  it('merges only candidates sharing a strong key with the subject', async () => {
    const first = adapter('person', 'first', () =>
      hit({ ...JANE, profile_url: 'https://linkedin.com/in/janedoe' }),
    );
    // Same person via the profile URL the first adapter established (no email of its own).
    const byProfile = adapter('person', 'by_profile', () =>
      hit({ profile_url: 'https://www.linkedin.com/in/JaneDoe/', location: 'Paris' }),
    );
    // A namesake: same name and company, another email — not the same person.
    const namesake = adapter('person', 'namesake', () =>
      hit({ ...JANE, email: 'jane.doe2@acme.com', title: 'Intern' }),
    );
    // No strong key at all.
    const vague = adapter('person', 'vague', () => hit({ full_name: 'Jane Doe', title: 'Chef' }));
    const { instance } = enricher([first, byProfile, namesake, vague]);
    const { match, adapters } = await instance.enrichContact({ email: 'jane@acme.com' });
    expect(match?.location).toBe('Paris');
    expect(match?.title).toBeNull();
    expect(adapters.find((a) => a.adapter === 'namesake')?.rejected).toBe(1);
    expect(adapters.find((a) => a.adapter === 'vague')?.rejected).toBe(1);
  });

  it('by domain and name: needs the name AND the company domain', async () => {
    const right = adapter('person', 'right', () =>
      hit({ full_name: 'jane  doe', company_domain: 'www.acme.com', title: 'CFO' }),
    );
    const wrong = adapter('person', 'wrong', () =>
      hit({ full_name: 'Jane Doe', company_domain: 'other.com', location: 'Rome' }),
    );
    const { instance } = enricher([right, wrong]);
    const { match } = await instance.enrichContact({ domain: 'acme.com', full_name: 'Jane Doe' });
    expect(match?.title).toBe('CFO');
    expect(match?.location).toBeNull();
  });

  it('an answer with two people of that name at the company is ambiguous: neither is merged', async () => {
    const twins = adapter('person', 'twins', () => ({
      type: 'hit',
      candidates: [
        { fields: { ...JANE, title: 'CTO' }, confidence: 0.9 },
        { fields: { ...JANE, email: 'jane.doe@acme.com', title: 'Intern' }, confidence: 0.8 },
      ],
      cost: 0,
    }));
    const { instance } = enricher([twins]);
    const { match, adapters } = await instance.enrichContact({ domain: 'acme.com', full_name: 'Jane Doe' });
    expect(match).toBeNull();
    expect(adapters[0]?.rejected).toBe(2);
    // By email the same answer is not ambiguous: only the candidate with that email is Jane.
    const byEmail = await instance.enrichContact({ email: 'jane@acme.com' });
    expect(byEmail.match?.title).toBe('CTO');
  });

  it('company: refuses a candidate for another domain', async () => {
    const other = adapter('company', 'other', () => hit({ domain: 'evil.com', name: 'Evil' }));
    const right = adapter('company', 'right', () =>
      hit({ domain: 'https://www.acme.com', name: 'Acme', technologies: ['HubSpot'], employee_count: 41.6 }),
    );
    const { instance } = enricher([other, right]);
    const { match } = await instance.enrichCompany({ domain: 'ACME.com' });
    expect(match).toMatchObject({
      name: 'Acme',
      domain: 'acme.com',
      technologies: ['HubSpot'],
      employee_count: 42,
    });
    expect(match?.sources.name?.adapter).toBe('right');
  });
});

describe('confidence', () => {
  it('corroborates agreeing sources, drops fields below the threshold, and misses below it overall', async () => {
    const a = adapter('person', 'a', () => ({
      type: 'hit',
      candidates: [
        {
          fields: { ...JANE, title: 'CTO', location: 'Oslo' },
          confidence: 0.6,
          fieldConfidence: { location: 0.2 },
        },
      ],
      cost: 0,
    }));
    const b = adapter('person', 'b', () => hit({ ...JANE, title: 'cto' }, 0.5));
    const { instance } = enricher([a, b]);
    const { match } = await instance.enrichContact({ email: 'jane@acme.com' });
    expect(match?.confidence).toBe(0.8);
    expect(match?.location).toBeNull();
    expect(match?.title).toBe('CTO');

    const weak = adapter('person', 'weak', () => hit(JANE, 0.3));
    const low = enricher([weak]);
    expect((await low.instance.enrichContact({ email: 'jane@acme.com' })).match).toBeNull();
  });
});

describe('cache', () => {
  it('serves hits and misses from the cache until their TTL, and never caches errors', async () => {
    const hits = adapter('person', 'hits', () => hit(JANE));
    const misses = adapter('person', 'misses', () => miss, { provides: ['location'] });
    let fail = true;
    const flaky = adapter(
      'person',
      'flaky',
      () =>
        fail
          ? { type: 'error', error: { kind: 'upstream', message: '503' }, cost: 0 }
          : hit({ ...JANE, title: 'CEO' }),
      { provides: ['title'] },
    );
    const { instance, time } = enricher([hits, misses, flaky]);
    await instance.enrichContact({ email: 'jane@acme.com' });
    fail = false;
    const again = await instance.enrichContact({ email: 'jane@acme.com' });
    expect(again.adapters.map((a) => a.status)).toEqual(['cached_hit', 'cached_miss', 'hit']);
    expect(hits.calls).toHaveLength(1);
    expect(flaky.calls).toHaveLength(2);
    time.advance(61_000); // past the miss TTL, within the hit TTL
    await instance.enrichContact({ email: 'jane@acme.com' });
    expect(misses.calls).toHaveLength(2);
    expect(hits.calls).toHaveLength(1);
  });

  it('asks the adapter again when a cached entry is unreadable', async () => {
    const source = adapter('person', 'source', () => hit(JANE));
    const { instance, cache, time } = enricher([source]);
    await cache.set('source|email:jane@acme.com', {
      value: '{not json',
      storedAt: time.now(),
      expiresAt: time.now() + 1000,
      subjects: [],
    });
    const { match, adapters } = await instance.enrichContact({ email: 'jane@acme.com' });
    expect(match?.full_name).toBe('Jane Doe');
    expect(adapters[0]?.status).toBe('hit');
  });

  it('prunes expired entries from the store itself, at most once per interval', async () => {
    const source = adapter('person', 'source', () => hit(JANE), { ttl: { hitSeconds: 60, missSeconds: 60 } });
    const { instance, time, cache } = enricher([source], { pruneIntervalMs: 600_000 });
    await instance.enrichContact({ email: 'jane@acme.com' });
    time.advance(120_000);
    await instance.enrichContact({ email: 'john@acme.com' }); // within the interval: no prune yet
    expect(await cache.prune(time.now())).toBe(1);
    await instance.enrichContact({ email: 'jim@acme.com' });
    time.advance(600_000);
    await instance.enrichContact({ email: 'joe@acme.com' }); // the interval passed: pruned on the way
    expect(await cache.prune(time.now())).toBe(0);
  });
});

describe('single flight, concurrency, budget', () => {
  it('shares one lookup among concurrent identical enrichments, charging it once', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const paid = adapter(
      'person',
      'paid',
      async () => {
        await gate;
        return hit(JANE, 0.9, 1);
      },
      { cost: 1 },
    );
    const { instance } = enricher([paid]);
    const pending = Array.from({ length: 5 }, () => instance.enrichContact({ email: 'jane@acme.com' }));
    // One turn of the event loop: every call has reached the adapter (or the lookup in flight).
    await new Promise(setImmediate);
    release();
    const results = await Promise.all(pending);
    expect(paid.calls).toHaveLength(1);
    expect(results.reduce((sum, r) => sum + r.cost, 0)).toBe(1);
    expect(results.every((r) => r.match?.full_name === 'Jane Doe')).toBe(true);
  });

  it('runs at most `concurrency` lookups of one adapter at once', async () => {
    const slow = adapter(
      'person',
      'slow',
      async (query) => {
        // Held over a turn of the event loop, so the lookups overlap unless the limit holds them back.
        await new Promise(setImmediate);
        return query.by === 'email' ? hit({ ...JANE, email: query.email }) : miss;
      },
      { concurrency: 2 },
    );
    const { instance } = enricher([slow]);
    await Promise.all(
      Array.from({ length: 6 }, (_, i) => instance.enrichContact({ email: `p${i}@acme.com` })),
    );
    expect(slow.calls).toHaveLength(6);
    expect(slow.maxInFlight).toBe(2);
  });

  it('skips adapters that would exceed the call’s budget', async () => {
    const cheap = adapter('person', 'cheap', () => hit({ ...JANE, location: 'Lyon' }, 0.9, 1), {
      cost: 1,
      provides: ['location'],
    });
    const dear = adapter('person', 'dear', () => hit({ ...JANE, title: 'CEO' }, 0.9, 5), { cost: 5 });
    const { instance } = enricher([cheap, dear], { budget: 3 });
    const limited = await instance.enrichContact({ email: 'jane@acme.com' });
    expect(limited.adapters.map((a) => a.status)).toEqual(['hit', 'skipped_budget']);
    expect(limited.cost).toBe(1);
    expect(dear.calls).toHaveLength(0);
    const generous = await instance.enrichContact({ email: 'jane@acme.com' }, { budget: 10 });
    expect(generous.cost).toBe(5);
    expect(generous.match?.title).toBe('CEO');
  });

  it('gives up on a lookup past the deadline with a timeout', async () => {
    const hang = adapter(
      'person',
      'hang',
      (_query, signal) =>
        new Promise((resolve) =>
          signal.addEventListener('abort', () =>
            resolve({ type: 'error', error: { kind: 'timeout', message: 'aborted' }, cost: 0 }),
          ),
        ),
    );
    const { instance } = enricher([hang], { timeoutMs: 50 });
    const { adapters, match } = await instance.enrichContact({ email: 'jane@acme.com' });
    expect(match).toBeNull();
    expect(adapters[0]).toMatchObject({ status: 'error', error: 'timeout' });
  });
});

describe('circuit breaker', () => {
  it('opens after consecutive failures, lets one trial through after the cooldown, and closes on success', async () => {
    let failing = true;
    const shaky = adapter('person', 'shaky', () =>
      failing
        ? { type: 'error', error: { kind: 'upstream', message: '500', status: 500 }, cost: 0 }
        : hit(JANE),
    );
    const { instance, time } = enricher([shaky], { breaker: { failureThreshold: 3, cooldownMs: 10_000 } });
    for (let i = 0; i < 3; i++) await instance.enrichContact({ email: `u${i}@acme.com` });
    expect(instance.circuits()).toEqual({ shaky: 'open' });
    const skipped = await instance.enrichContact({ email: 'u9@acme.com' });
    expect(skipped.adapters[0]?.status).toBe('skipped_circuit_open');
    expect(shaky.calls).toHaveLength(3);
    time.advance(10_000);
    failing = false;
    const trial = await instance.enrichContact({ email: 'jane@acme.com' });
    expect(trial.match?.full_name).toBe('Jane Doe');
    expect(instance.circuits()).toEqual({ shaky: 'closed' });
  });

  it('a rate limit with Retry-After opens the circuit at once for that long', async () => {
    const limited = adapter('person', 'limited', () => ({
      type: 'error',
      error: { kind: 'rate_limited', message: '429', retryAfterSeconds: 60 },
      cost: 0,
    }));
    const { instance, time } = enricher([limited], { breaker: { failureThreshold: 5, cooldownMs: 1000 } });
    await instance.enrichContact({ email: 'a@acme.com' });
    time.advance(30_000);
    expect(instance.circuits()).toEqual({ limited: 'open' });
    time.advance(30_000);
    expect(instance.circuits()).toEqual({ limited: 'half_open' });
  });
});

describe('privacy', () => {
  it('erase purges cached outcomes about the person and suppresses them before any adapter call', async () => {
    const source = adapter('person', 'source', () => hit({ ...JANE, title: 'CTO' }));
    const { instance } = enricher([source]);
    await instance.enrichContact({ email: 'jane@acme.com' });
    await instance.enrichContact({ domain: 'acme.com', full_name: 'Jane Doe' });
    expect(source.calls).toHaveLength(2);
    // Both cached outcomes carry Jane's email, so erasing the email purges both.
    expect(await instance.erase({ email: 'JANE@acme.com' })).toEqual({
      cache_entries_purged: 2,
      suppressed: true,
    });
    const after = await instance.enrichContact({ email: 'jane@acme.com' });
    expect(after).toMatchObject({ match: null, suppressed: true, cost: 0 });
    expect(source.calls).toHaveLength(2);
    // Found by name, the profile would reveal the erased email: it is withheld too.
    const byName = await instance.enrichContact({ domain: 'acme.com', full_name: 'Jane Doe' });
    expect(byName).toMatchObject({ match: null, suppressed: true });
  });

  it('refuses bad input with invalid_request', async () => {
    const { instance } = enricher([]);
    await expect(instance.enrichContact({ email: 'nope' })).rejects.toSatisfy(
      (error: unknown) => ServiceError.is(error) && error.code === 'invalid_request',
    );
    await expect(instance.erase({})).rejects.toThrow(/email/);
    expect(() =>
      createEnricher({ adapters: [adapter('person', 'x', () => miss), adapter('person', 'x', () => miss)] }),
    ).toThrow('share the id');
  });
});

describe('misses that explain themselves', () => {
  const failure = { type: 'error', error: { kind: 'upstream', message: 'refused' }, cost: 0 } as const;
  const site = (answer: () => LookupOutcome<'company'>) =>
    adapter('company', 'site', answer, { readsCompanySite: true });

  it('says why each miss is one, and null on a match', async () => {
    const other = adapter('company', 'other', () => miss);
    const cases: Array<[AnyEnrichmentAdapter[], string]> = [
      [[site(() => miss), other], 'not_found_on_site'],
      [[site(() => failure), other], 'site_unreachable'],
      [[site(() => failure), adapter('company', 'down', () => failure)], 'all_adapters_failed'],
      [[other], 'no_match'],
      // A hit below the threshold is still a source that answered.
      [[site(() => hit({ name: 'Acme', domain: 'acme.com' }, 0.2))], 'not_found_on_site'],
      // No adapter for the query at all: nothing failed either.
      [[], 'no_match'],
    ];
    for (const [adapters, reason] of cases) {
      const outcome = await enricher(adapters).instance.enrichCompany({ domain: 'acme.com' });
      expect({ reason, outcome }).toMatchObject({ reason, outcome: { match: null, miss: reason } });
    }
    const found = await enricher([
      site(() => hit({ name: 'Acme', domain: 'acme.com' })),
    ]).instance.enrichCompany({
      domain: 'acme.com',
    });
    expect(found).toMatchObject({ match: { name: 'Acme' }, miss: null });
  });

  it('a cached site miss still explains itself; an erased subject is `suppressed`', async () => {
    const source = adapter('person', 'site_people', () => miss, { readsCompanySite: true });
    const { instance } = enricher([source]);
    await instance.enrichContact({ email: 'jane@acme.com' });
    const again = await instance.enrichContact({ email: 'jane@acme.com' });
    expect(again).toMatchObject({ miss: 'not_found_on_site', adapters: [{ status: 'cached_miss' }] });
    await instance.erase({ email: 'jane@acme.com' });
    expect(await instance.enrichContact({ email: 'jane@acme.com' })).toMatchObject({ miss: 'suppressed' });
  });

  it('an open circuit counts as a failure to reach the source', async () => {
    const down = adapter('company', 'down', () => failure);
    const { instance } = enricher([down], { breaker: { failureThreshold: 1, cooldownMs: 60_000 } });
    expect((await instance.enrichCompany({ domain: 'acme.com' })).miss).toBe('all_adapters_failed');
    const refused = await instance.enrichCompany({ domain: 'acme.com' });
    expect(refused).toMatchObject({
      miss: 'all_adapters_failed',
      adapters: [{ status: 'skipped_circuit_open' }],
    });
  });
});

describe('a source that could not be reached', () => {
  it('a miss marked unreachable is cached, trips no breaker, and explains the miss as not reached', async () => {
    const nowhere = { type: 'miss', cost: 0, unreachable: true } as const;
    const site = adapter('company', 'site', () => nowhere, { readsCompanySite: true });
    const dns = adapter('company', 'dns', () => miss);
    const { instance } = enricher([site, dns], { breaker: { failureThreshold: 1 } });
    const first = await instance.enrichCompany({ domain: 'acme.com' });
    expect(first).toMatchObject({
      miss: 'site_unreachable',
      adapters: [{ adapter: 'site', status: 'miss', unreachable: true }, { status: 'miss' }],
    });
    const again = await instance.enrichCompany({ domain: 'acme.com' });
    expect(again).toMatchObject({
      miss: 'site_unreachable',
      adapters: [{ status: 'cached_miss', unreachable: true }, { status: 'cached_miss' }],
    });
    expect(site.calls).toHaveLength(1);
    expect(instance.circuits()).toEqual({ site: 'closed', dns: 'closed' });
    // The site alone: nothing at all was looked at.
    const alone = enricher([adapter('company', 'site', () => nowhere, { readsCompanySite: true })]);
    expect((await alone.instance.enrichCompany({ domain: 'acme.com' })).miss).toBe('all_adapters_failed');
  });
});
