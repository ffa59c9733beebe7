/**
 * The orchestrator (DESIGN §7): everything between adapters. One enrichment normalises the query,
 * refuses suppressed identifiers before any adapter runs, then walks the adapters in priority
 * order (per-field waterfall), each answer served from the cache or fetched under single flight,
 * a circuit breaker, a concurrency limit and the call's cost budget; candidates pass the identity
 * gate before their fields merge; the result keeps each field's source and is a miss below the
 * confidence threshold.
 */
import { resolveMx, resolveTxt } from 'node:dns/promises';
import type { CompanyProfile, Department, Person } from '@svc/core';
import type {
  AdapterError,
  AdapterKind,
  Candidate,
  CompanyFields,
  EnrichmentAdapter,
  EnrichmentDns,
  EnrichmentQuery,
  LookupOutcome,
  PersonFields,
  QueryOf,
} from './adapter.js';
import { createMemoryCache } from './cache/memory.js';
import type { EnrichmentCache } from './cache/types.js';
import { createGuardedFetch } from './fetch/guarded-fetch.js';
import { type BreakerOptions, CircuitBreaker } from './orchestrator/breaker.js';
import { IdentityGate } from './orchestrator/identity.js';
import { Limiter } from './orchestrator/limiter.js';
import { FieldMerger, type FieldSource } from './orchestrator/merge.js';
import { type MissReason, missReason } from './orchestrator/miss-reason.js';
import {
  type CompanyLookup,
  type EnrichedPersonCompany,
  personCompany,
  personCompanyDomain,
} from './orchestrator/person-company.js';
import { SingleFlight } from './orchestrator/single-flight.js';
import { hashIdentifier } from './privacy/hash.js';
import { candidateIdentifiers } from './privacy/subjects.js';
import { createMemorySuppression, type SuppressionList } from './privacy/suppression.js';
import { identifiersOf, normaliseCompanyQuery, normalisePersonQuery } from './query.js';
import { classifySeniority } from './seniority/classify.js';

/**
 * A person or a company adapter. `EnrichmentAdapter<'person'>` is not assignable to
 * `EnrichmentAdapter<AdapterKind>` (whose `provides` narrows to the keys both kinds share), so
 * both spellings are accepted.
 */
export type AnyEnrichmentAdapter =
  | EnrichmentAdapter<'person'>
  | EnrichmentAdapter<'company'>
  | EnrichmentAdapter;

export interface EnricherOptions {
  /** The adapters, in priority order: earlier ones win a field. Ids must be unique. */
  adapters: readonly AnyEnrichmentAdapter[];
  /** @default a memory cache (30-day retention) */
  cache?: EnrichmentCache;
  /** @default an empty in-memory list */
  suppression?: SuppressionList;
  /** The fetch adapters get. @default createGuardedFetch() (public addresses only) */
  fetch?: typeof fetch;
  /** @default node:dns/promises */
  dns?: EnrichmentDns;
  /** ms since the epoch. @default Date.now */
  now?: () => number;
  /** Fields and results below this confidence are dropped; a result below it is a miss. @default 0.5 */
  minConfidence?: number;
  /** Most credits one enrichment may spend (adapters that would exceed it are skipped). @default Infinity */
  budget?: number;
  /** Deadline for one adapter lookup, ms. @default 10000 */
  timeoutMs?: number;
  breaker?: BreakerOptions;
  /**
   * Expired cache entries are never served, but stay on disk until pruned: the enricher prunes
   * the cache at most this often, ms (on the first enrichment, then after each interval). @default 3600000
   */
  pruneIntervalMs?: number;
}

export interface EnrichCallOptions {
  /** Overrides the enricher's budget for this call. */
  budget?: number;
  /** Stops waiting when aborted (a shared lookup keeps running for the others). */
  signal?: AbortSignal;
}

/** What happened with one adapter during a call (snake_case: shown in logs and the CLI). */
export interface AdapterReport {
  adapter: string;
  status:
    | 'hit'
    | 'miss'
    | 'error'
    | 'cached_hit'
    | 'cached_miss'
    | 'shared'
    | 'skipped_filled'
    | 'skipped_budget'
    | 'skipped_circuit_open';
  /** Candidates the identity gate refused. */
  rejected?: number;
  /** A miss because the source could not be reached (nothing was looked at). */
  unreachable?: true;
  error?: AdapterError['kind'];
  cost: number;
}

/** A person profile (core's Person plus the extras the spec allows). */
export interface EnrichedPerson extends Person {
  /** The person's company, completed from the company lookup for its domain (`person-company.ts`). */
  company: EnrichedPersonCompany | null;
  /** The function the title names (`classifySeniority`), or null when it names none. */
  department: Department | null;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  profile_url: string | null;
  location: string | null;
  /** Field (flat name, e.g. `title`, `company_name`) → where it came from. */
  sources: Record<string, FieldSource>;
}

export interface EnrichedCompany extends CompanyProfile {
  logo: string | null;
  sources: Record<string, FieldSource>;
}

export interface EnrichOutcome<T> {
  /** The profile, or null for no match (a miss, a result below the threshold, or a suppressed subject). */
  match: T | null;
  /** Credits spent by this call (cache hits and shared lookups cost nothing). */
  cost: number;
  /** True when the subject is on the suppression list: nothing was looked up. */
  suppressed: boolean;
  /** Why there is no match (null when there is one); `all_adapters_failed` is no verdict at all. */
  miss: MissReason | null;
  adapters: AdapterReport[];
  /**
   * A contact match only: how each company adapter answered the lookup of the person's company
   * domain (absent when no domain was known). Its cost is included in `cost`.
   */
  companyAdapters?: AdapterReport[];
}

export interface EraseResult {
  /** How many cached outcomes about the subject were deleted. */
  cache_entries_purged: number;
  /** Always true: the subject is now on the suppression list. */
  suppressed: true;
}

export interface Enricher {
  enrichContact(input: unknown, options?: EnrichCallOptions): Promise<EnrichOutcome<EnrichedPerson>>;
  enrichCompany(input: unknown, options?: EnrichCallOptions): Promise<EnrichOutcome<EnrichedCompany>>;
  /** Purges everything cached about a person (email, profile URL, or domain + name) and suppresses it. */
  erase(input: unknown): Promise<EraseResult>;
  /** Each adapter's circuit state, for health reports. */
  circuits(): Record<string, 'closed' | 'open' | 'half_open'>;
}

/** Whether an adapter takes part in this call (`available`), or 'error' when asking threw. */
async function isAvailable(adapter: {
  available?(): boolean | Promise<boolean>;
}): Promise<boolean | 'error'> {
  if (!adapter.available) return true;
  try {
    return await adapter.available();
  } catch {
    return 'error';
  }
}

/** A stored outcome: errors are never cached. */
type Stored<K extends AdapterKind> =
  | { type: 'hit'; candidates: Candidate<K>[]; at: number }
  | { type: 'miss'; at: number; unreachable?: true };

interface Fetched<K extends AdapterKind> {
  outcome: LookupOutcome<K>;
  at: number;
}

const systemDns: EnrichmentDns = { resolveMx, resolveTxt };

function checkOptions(options: EnricherOptions): void {
  const ids = new Set<string>();
  for (const adapter of options.adapters) {
    if (ids.has(adapter.id)) throw new TypeError(`two adapters share the id ${JSON.stringify(adapter.id)}`);
    ids.add(adapter.id);
  }
  const min = options.minConfidence ?? 0.5;
  if (!(min >= 0 && min <= 1)) throw new RangeError(`minConfidence must be within 0..1, got ${min}`);
  if (options.budget !== undefined && !(options.budget >= 0)) throw new RangeError('budget must be ≥ 0');
}

export function createEnricher(options: EnricherOptions): Enricher {
  checkOptions(options);
  const cache = options.cache ?? createMemoryCache();
  const suppression = options.suppression ?? createMemorySuppression();
  const guardedFetch = options.fetch ?? createGuardedFetch();
  const dns = options.dns ?? systemDns;
  const now = options.now ?? Date.now;
  const minConfidence = options.minConfidence ?? 0.5;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const breakers = new Map(options.adapters.map((a) => [a.id, new CircuitBreaker(now, options.breaker)]));
  const limiters = new Map(options.adapters.map((a) => [a.id, new Limiter(a.concurrency)]));
  const pruneIntervalMs = options.pruneIntervalMs ?? 3_600_000;
  const siteAdapters = new Set(options.adapters.filter((a) => a.readsCompanySite).map((a) => a.id));
  /** A miss, with its reason from the call's adapter reports. */
  const noMatch = (base: { adapters: AdapterReport[]; suppressed: boolean; cost: number }) => ({
    ...base,
    match: null,
    miss: missReason(base.adapters, base.suppressed, siteAdapters),
  });
  let nextPrune = Number.NEGATIVE_INFINITY;
  /** Deletes expired cache rows so personal data does not outlive its TTL or the retention limit on disk. */
  async function maybePrune(): Promise<void> {
    const time = now();
    if (time < nextPrune) return;
    nextPrune = time + pruneIntervalMs;
    await cache.prune(time);
  }
  // 'circuit_open': the breaker refused the call, so nothing was asked.
  const flights = new SingleFlight<Fetched<AdapterKind> | 'circuit_open'>();

  /** One real lookup: under the concurrency limit, with a deadline; a thrown error becomes a typed one. */
  async function callAdapter<K extends AdapterKind>(
    adapter: EnrichmentAdapter<K>,
    query: QueryOf<K>,
  ): Promise<Fetched<K>> {
    const limiter = limiters.get(adapter.id) as Limiter;
    return limiter.run(async () => {
      const signal = AbortSignal.timeout(timeoutMs);
      let outcome: LookupOutcome<K>;
      try {
        outcome = await adapter.lookup(query, { signal, fetch: guardedFetch, dns, now });
      } catch (error) {
        // The contract says adapters never throw for upstream failures; one that does is treated as one.
        const message = error instanceof Error ? error.message : String(error);
        outcome = {
          type: 'error',
          error: { kind: signal.aborted ? 'timeout' : 'upstream', message },
          cost: 0,
        };
      }
      return { outcome, at: now() };
    });
  }

  function cacheKey(
    adapter: AnyEnrichmentAdapter | EnrichmentAdapter<AdapterKind>,
    query: EnrichmentQuery,
  ): string {
    return `${adapter.id}|${identifiersOf(query).join('|')}`;
  }

  async function store<K extends AdapterKind>(
    adapter: EnrichmentAdapter<K>,
    query: QueryOf<K>,
    key: string,
    fetched: Fetched<K>,
  ): Promise<void> {
    const { outcome, at } = fetched;
    if (outcome.type === 'error') return;
    const identifiers = new Set(identifiersOf(query));
    const stored: Stored<K> =
      outcome.type === 'hit' ? { type: 'hit', candidates: outcome.candidates, at } : storedMiss(outcome, at);
    if (outcome.type === 'hit') {
      for (const candidate of outcome.candidates) {
        for (const id of candidateIdentifiers(adapter.kind, candidate)) identifiers.add(id);
      }
    }
    const ttl = outcome.type === 'hit' ? adapter.ttl.hitSeconds : adapter.ttl.missSeconds;
    // A TTL of 0 is never cached (the dataset adapters: a local indexed read, and an import
    // must show at once), so the cache holds no row of it, personal data included.
    if (ttl === 0) return;
    await cache.set(key, {
      value: JSON.stringify(stored),
      storedAt: at,
      expiresAt: at + ttl * 1000,
      subjects: [...identifiers].map(hashIdentifier),
    });
  }

  async function isSuppressed(identifiers: Iterable<string>): Promise<boolean> {
    for (const id of identifiers) if (await suppression.has(hashIdentifier(id))) return true;
    return false;
  }

  async function waterfall<K extends AdapterKind>(
    kind: K,
    query: QueryOf<K>,
    call: EnrichCallOptions,
  ): Promise<{
    merger: FieldMerger<K>;
    cost: number;
    adapters: AdapterReport[];
    suppressed: boolean;
    extraIds: string[];
  }> {
    const merger = new FieldMerger<K>(minConfidence);
    const gate = new IdentityGate(kind, query);
    const reports: AdapterReport[] = [];
    const budget = call.budget ?? options.budget ?? Number.POSITIVE_INFINITY;
    const extraIds: string[] = [];
    let spent = 0;
    if (await isSuppressed(identifiersOf(query)))
      return { merger, cost: 0, adapters: reports, suppressed: true, extraIds };

    for (const candidateAdapter of options.adapters) {
      if (candidateAdapter.kind !== kind || !candidateAdapter.accepts.includes(query.by)) continue;
      const adapter = candidateAdapter as unknown as EnrichmentAdapter<K>;
      const there = await isAvailable(adapter);
      if (there === false) continue;
      const report: AdapterReport = { adapter: adapter.id, status: 'miss', cost: 0 };
      reports.push(report);
      if (there === 'error') {
        // Its source is there but unusable (a dataset file that cannot be opened): a failure.
        report.status = 'error';
        report.error = 'upstream';
        continue;
      }
      // Per-field waterfall: an adapter is asked only for something still missing.
      if (adapter.provides.every((field) => merger.filled(field as string))) {
        report.status = 'skipped_filled';
        continue;
      }
      const key = cacheKey(adapter, query);
      let stored: Stored<K> | undefined;
      const cached =
        adapter.ttl.hitSeconds > 0 || adapter.ttl.missSeconds > 0 ? await cache.get(key, now()) : undefined;
      stored = cached ? parseStored<K>(cached.value) : undefined;
      if (stored) {
        report.status = stored.type === 'hit' ? 'cached_hit' : 'cached_miss';
      } else {
        if (spent + adapter.cost > budget) {
          report.status = 'skipped_budget';
          continue;
        }
        const breaker = breakers.get(adapter.id) as CircuitBreaker;
        const { promise, shared } = flights.do(key, async () => {
          if (!breaker.tryAcquire()) return 'circuit_open';
          const fetched = await callAdapter(adapter, query);
          if (fetched.outcome.type === 'error') breaker.failure(fetched.outcome.error);
          else breaker.success();
          await store(adapter, query, key, fetched);
          return fetched;
        });
        const answer = await waitFor(promise, call.signal);
        if (answer === 'circuit_open') {
          report.status = 'skipped_circuit_open';
          continue;
        }
        const fetched = answer as Fetched<K>;
        const { outcome } = fetched;
        // Whoever joined a lookup in flight did not cause its cost.
        report.cost = shared ? 0 : outcome.cost;
        spent += report.cost;
        if (outcome.type === 'error') {
          report.status = 'error';
          report.error = outcome.error.kind;
          continue;
        }
        report.status = shared ? 'shared' : outcome.type;
        stored =
          outcome.type === 'hit'
            ? { type: 'hit', candidates: outcome.candidates, at: fetched.at }
            : storedMiss(outcome, fetched.at);
      }
      if (stored.type === 'miss' && stored.unreachable) report.unreachable = true;
      if (stored.type !== 'hit') continue;
      const source: FieldSource = { adapter: adapter.id, retrieved_at: new Date(stored.at).toISOString() };
      // The most confident candidate first: it is the likeliest to establish the identity.
      const ordered = [...stored.candidates].sort((a, b) => b.confidence - a.confidence);
      const admitted = gate.admitAll(ordered);
      for (const candidate of admitted) {
        merger.add(candidate, source);
        extraIds.push(...candidateIdentifiers(kind, candidate));
      }
      const rejected = ordered.length - admitted.length;
      if (rejected > 0) report.rejected = rejected;
    }
    return { merger, cost: spent, adapters: reports, suppressed: false, extraIds };
  }

  /**
   * The company waterfall for a person's company domain, within what is left of the call's
   * budget: each company adapter's answer comes from the cache when `enrichCompany` (or another
   * contact at the same company) asked within its TTL. Null fields when it finds nothing confident.
   */
  async function lookupCompany(
    domain: string,
    call: EnrichCallOptions,
    spent: number,
  ): Promise<{ found: CompanyLookup | null; cost: number; adapters: AdapterReport[] }> {
    const budget = (call.budget ?? options.budget ?? Number.POSITIVE_INFINITY) - spent;
    const run = await waterfall(
      'company',
      { by: 'domain', domain },
      { ...call, budget: Math.max(0, budget) },
    );
    const { values, sources } = run.merger.result();
    const confident = run.merger.overall() >= minConfidence && Object.keys(values).length > 0;
    return {
      found: confident ? { values: values as Partial<CompanyFields>, sources } : null,
      cost: run.cost,
      adapters: run.adapters,
    };
  }

  return {
    async enrichContact(input, call = {}) {
      const query = normalisePersonQuery(input);
      await maybePrune();
      const run = await waterfall('person', query, call);
      const base = { cost: run.cost, adapters: run.adapters, suppressed: run.suppressed };
      // A merged profile can reveal an identifier that was erased (found by name, carrying the erased email).
      if (run.suppressed || (await isSuppressed(run.extraIds))) return noMatch({ ...base, suppressed: true });
      const overall = run.merger.overall();
      const { values, sources } = run.merger.result();
      if (overall < minConfidence || Object.keys(values).length === 0) return noMatch(base);
      const fields = values as Partial<PersonFields>;
      const domain = personCompanyDomain(query, fields);
      const company = domain === null ? null : await lookupCompany(domain, call, run.cost);
      return {
        ...base,
        cost: base.cost + (company?.cost ?? 0),
        miss: null,
        match: toPerson(fields, sources, overall, domain, company?.found ?? null),
        ...(company ? { companyAdapters: company.adapters } : {}),
      };
    },
    async enrichCompany(input, call = {}) {
      const query = normaliseCompanyQuery(input);
      await maybePrune();
      const run = await waterfall('company', query, call);
      const base = { cost: run.cost, adapters: run.adapters, suppressed: run.suppressed };
      if (run.suppressed) return noMatch(base);
      const overall = run.merger.overall();
      const { values, sources } = run.merger.result();
      if (overall < minConfidence || Object.keys(values).length === 0) return noMatch(base);
      return {
        ...base,
        miss: null,
        match: toCompany(query.domain, values as Partial<CompanyFields>, sources, overall),
      };
    },
    async erase(input) {
      const query = normalisePersonQuery(input);
      let purged = 0;
      for (const id of identifiersOf(query)) {
        const hash = hashIdentifier(id);
        await suppression.add(hash, now());
        purged += await cache.purgeSubject(hash);
      }
      return { cache_entries_purged: purged, suppressed: true };
    },
    circuits() {
      return Object.fromEntries([...breakers].map(([id, breaker]) => [id, breaker.state]));
    },
  };
}

/** A miss as cached, keeping whether its source was unreachable. */
function storedMiss(
  outcome: { unreachable?: boolean },
  at: number,
): { type: 'miss'; at: number; unreachable?: true } {
  return outcome.unreachable ? { type: 'miss', at, unreachable: true } : { type: 'miss', at };
}

/** A cached outcome, or undefined when the stored text is not one (then the adapter is asked again). */
function parseStored<K extends AdapterKind>(text: string): Stored<K> | undefined {
  try {
    const value = JSON.parse(text) as Stored<K>;
    if (value.type === 'miss' && typeof value.at === 'number') return value;
    if (value.type === 'hit' && typeof value.at === 'number' && Array.isArray(value.candidates)) return value;
  } catch {}
  return undefined;
}

/** Resolves with the promise, or rejects with the signal's reason once it aborts. */
function waitFor<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

const round = (value: number) => Math.round(value * 1000) / 1000;
/** Counts and years are integers in the API's schema, whatever an adapter parsed. */
const integer = (value: number | undefined) => (value === undefined ? null : Math.round(value));

function toPerson(
  fields: Partial<PersonFields>,
  personSources: Record<string, FieldSource>,
  confidence: number,
  companyDomain: string | null,
  companyLookup: CompanyLookup | null,
): EnrichedPerson {
  const { company, sources: companySources } = personCompany(
    companyDomain,
    fields,
    personSources,
    companyLookup,
  );
  // The company block's fields keep the source of the value it shows (`company_<field>`).
  const sources = Object.fromEntries(
    Object.entries(personSources).filter(([field]) => !field.startsWith('company_')),
  );
  Object.assign(sources, companySources);
  const classification = classifySeniority(fields.title ?? null);
  return {
    full_name: fields.full_name ?? null,
    first_name: fields.first_name ?? null,
    last_name: fields.last_name ?? null,
    title: fields.title ?? null,
    seniority: classification.seniority,
    department: classification.department,
    email: fields.email ?? null,
    profile_url: fields.profile_url ?? null,
    location: fields.location ?? null,
    company,
    confidence: round(confidence),
    sources,
  };
}

function toCompany(
  domain: string,
  fields: Partial<CompanyFields>,
  sources: Record<string, FieldSource>,
  confidence: number,
): EnrichedCompany {
  return {
    name: fields.name ?? null,
    // The queried registrable domain is the company's identity, whatever an adapter spelled.
    domain,
    description: fields.description ?? null,
    employee_count: integer(fields.employee_count),
    founded: integer(fields.founded),
    industry: fields.industry ?? null,
    location: fields.location ?? null,
    technologies: fields.technologies ?? [],
    social: fields.social ?? {},
    language: fields.language ?? null,
    logo: fields.logo ?? null,
    confidence: round(confidence),
    sources,
  };
}
