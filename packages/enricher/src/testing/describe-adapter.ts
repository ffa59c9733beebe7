/**
 * The ONE conformance suite every adapter passes (built in and paid alike). An adapter's test
 * file calls `describeAdapter('website', { create, hits, misses, context, upstreamFailure })`
 * once; the suite checks what the orchestrator relies on:
 *  - the declaration is consistent (id, kind, accepts, provides, cost, TTLs, concurrency);
 *  - it answers every accepted query form and only fills fields it declares, with the right types;
 *  - a lookup resolves to hit, miss or a typed error, and a miss that is not billed costs 0;
 *  - it never throws for an upstream failure (the network refuses, DNS fails);
 *  - it respects the abort signal (settles promptly when the caller gives up).
 */
import { describe, expect, it } from 'vitest';
import type {
  AdapterContext,
  AdapterError,
  AdapterKind,
  EnrichmentAdapter,
  EnrichmentDns,
  FieldsOf,
  LookupOutcome,
  QueryForm,
  QueryOf,
} from '../adapter.js';

type FieldType = 'string' | 'number' | 'string[]' | 'record';

/** Each field's JSON type, per kind: the suite checks every value a hit returns against it. */
export const FIELD_TYPES: { [K in AdapterKind]: Record<keyof FieldsOf<K>, FieldType> } = {
  person: {
    full_name: 'string',
    first_name: 'string',
    last_name: 'string',
    title: 'string',
    email: 'string',
    profile_url: 'string',
    location: 'string',
    company_name: 'string',
    company_domain: 'string',
    company_employee_count: 'number',
    company_founded: 'number',
    company_technologies: 'string[]',
  },
  company: {
    name: 'string',
    domain: 'string',
    description: 'string',
    employee_count: 'number',
    founded: 'number',
    industry: 'string',
    location: 'string',
    technologies: 'string[]',
    social: 'record',
    logo: 'string',
    language: 'string',
  },
};

const FORMS: Record<AdapterKind, readonly QueryForm[]> = {
  person: ['email', 'domain_name', 'profile_url'],
  company: ['domain'],
};
const ERROR_KINDS: readonly AdapterError['kind'][] = ['rate_limited', 'quota', 'auth', 'upstream', 'timeout'];

/** What a test gives the context besides the signal (fetch, dns, now). */
export type ContextParts = Partial<Omit<AdapterContext, 'signal'>>;

export interface AdapterSuite<K extends AdapterKind> {
  /** A fresh adapter (called once per test). */
  create(): EnrichmentAdapter<K> | Promise<EnrichmentAdapter<K>>;
  /** Queries the adapter answers with a hit, in the given context; together with `misses` they must cover every accepted form. */
  hits: QueryOf<K>[];
  /** Queries it answers with a miss. */
  misses: QueryOf<K>[];
  /** The context for `hits` and `misses` (e.g. a guarded fetch allowing the loopback test site, the testkit DNS). */
  context?: () => ContextParts;
  /** A query and context where the upstream fails; the adapter must answer a typed error (of `kind` when given). */
  upstreamFailure?: { query: QueryOf<K>; context?: () => ContextParts; kind?: AdapterError['kind'] };
  /** How long a lookup may take once aborted. @default 1000 */
  abortGraceMs?: number;
}

/** A network that refuses everything: fetch rejects, DNS fails. */
export function brokenNetwork(): ContextParts {
  const refuse = () =>
    Promise.reject(Object.assign(new Error('connect ECONNREFUSED (test network)'), { code: 'ECONNREFUSED' }));
  return { fetch: refuse as typeof fetch, dns: { resolveMx: refuse, resolveTxt: refuse } };
}

/** A network that never answers until the signal aborts, then rejects with its reason. */
function hangingNetwork(signal: AbortSignal): ContextParts {
  const hang = () =>
    new Promise<never>((_, reject) => {
      if (signal.aborted) reject(signal.reason);
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
  const dns: EnrichmentDns = { resolveMx: hang, resolveTxt: hang };
  return { fetch: hang as typeof fetch, dns };
}

function contextOf(parts: ContextParts | undefined, signal: AbortSignal): AdapterContext {
  const broken = brokenNetwork();
  return {
    signal,
    fetch: parts?.fetch ?? (broken.fetch as typeof fetch),
    dns: parts?.dns ?? (broken.dns as EnrichmentDns),
    now: parts?.now ?? Date.now,
  };
}

function checkValue(field: string, type: FieldType, value: unknown): void {
  const where = `field ${field}`;
  switch (type) {
    case 'string':
      expect(typeof value, where).toBe('string');
      expect((value as string).trim().length, `${where} is empty`).toBeGreaterThan(0);
      break;
    case 'number':
      expect(Number.isFinite(value), `${where} is a finite number`).toBe(true);
      break;
    case 'string[]':
      expect(Array.isArray(value), `${where} is an array`).toBe(true);
      for (const item of value as unknown[]) expect(typeof item, where).toBe('string');
      break;
    case 'record':
      expect(
        typeof value === 'object' && value !== null && !Array.isArray(value),
        `${where} is an object`,
      ).toBe(true);
      for (const item of Object.values(value as object)) expect(typeof item, where).toBe('string');
      break;
  }
}

/** Checks an outcome's shape against the adapter's declaration; returns it for further checks. */
export function checkOutcome<K extends AdapterKind>(
  adapter: EnrichmentAdapter<K>,
  outcome: LookupOutcome<K>,
): LookupOutcome<K> {
  expect(['hit', 'miss', 'error']).toContain(outcome.type);
  expect(Number.isFinite(outcome.cost) && outcome.cost >= 0, 'cost is a non-negative number').toBe(true);
  if (outcome.type === 'miss' && !adapter.billsMisses)
    expect(outcome.cost, 'an unbilled miss costs 0').toBe(0);
  if (outcome.type === 'error') {
    expect(ERROR_KINDS).toContain(outcome.error.kind);
    expect(typeof outcome.error.message).toBe('string');
    expect(outcome.error.message.length).toBeGreaterThan(0);
  }
  if (outcome.type === 'hit') {
    expect(outcome.candidates.length, 'a hit has at least one candidate').toBeGreaterThan(0);
    const types = FIELD_TYPES[adapter.kind] as Record<string, FieldType>;
    for (const candidate of outcome.candidates) {
      expect(candidate.confidence).toBeGreaterThanOrEqual(0);
      expect(candidate.confidence).toBeLessThanOrEqual(1);
      const entries = Object.entries(candidate.fields).filter(([, value]) => value !== undefined);
      expect(entries.length, 'a candidate has at least one field').toBeGreaterThan(0);
      for (const [field, value] of entries) {
        expect(adapter.provides as readonly string[], `field ${field} is declared in provides`).toContain(
          field,
        );
        checkValue(field, types[field] as FieldType, value);
      }
      for (const [field, confidence] of Object.entries(candidate.fieldConfidence ?? {})) {
        expect(adapter.provides as readonly string[]).toContain(field);
        expect(confidence as number).toBeGreaterThanOrEqual(0);
        expect(confidence as number).toBeLessThanOrEqual(1);
      }
    }
  }
  return outcome;
}

/** Registers the conformance suite for one adapter. */
export function describeAdapter<K extends AdapterKind>(name: string, suite: AdapterSuite<K>): void {
  const grace = suite.abortGraceMs ?? 1000;
  const run = async (adapter: EnrichmentAdapter<K>, query: QueryOf<K>, parts: ContextParts | undefined) =>
    checkOutcome(adapter, await adapter.lookup(query, contextOf(parts, new AbortController().signal)));

  describe(`adapter conformance: ${name}`, () => {
    it('declares itself consistently', async () => {
      const adapter = await suite.create();
      expect(adapter.id).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(['person', 'company']).toContain(adapter.kind);
      expect(adapter.accepts.length).toBeGreaterThan(0);
      expect(new Set(adapter.accepts).size).toBe(adapter.accepts.length);
      for (const form of adapter.accepts) expect(FORMS[adapter.kind]).toContain(form);
      expect(adapter.provides.length).toBeGreaterThan(0);
      expect(new Set(adapter.provides).size).toBe(adapter.provides.length);
      for (const field of adapter.provides) expect(Object.keys(FIELD_TYPES[adapter.kind])).toContain(field);
      expect(Number.isFinite(adapter.cost) && adapter.cost >= 0).toBe(true);
      expect(typeof adapter.billsMisses).toBe('boolean');
      // 0 means never cached (the dataset adapters); never negative or fractional.
      expect(Number.isInteger(adapter.ttl.hitSeconds) && adapter.ttl.hitSeconds >= 0).toBe(true);
      expect(Number.isInteger(adapter.ttl.missSeconds) && adapter.ttl.missSeconds >= 0).toBe(true);
      expect(Number.isInteger(adapter.concurrency) && adapter.concurrency >= 1).toBe(true);
    });

    it('answers every accepted query form, filling only declared fields', async () => {
      const adapter = await suite.create();
      const covered = new Set([...suite.hits, ...suite.misses].map((query) => query.by));
      for (const form of adapter.accepts)
        expect([...covered], `the suite exercises the ${form} form`).toContain(form);
      for (const query of [...suite.hits, ...suite.misses]) expect(adapter.accepts).toContain(query.by);
      expect(suite.hits.length, 'at least one hit').toBeGreaterThan(0);
      for (const query of suite.hits) {
        const outcome = await run(adapter, query, suite.context?.());
        expect(outcome.type, `hit for ${JSON.stringify(query)}`).toBe('hit');
      }
      for (const query of suite.misses) {
        const outcome = await run(adapter, query, suite.context?.());
        expect(outcome.type, `miss for ${JSON.stringify(query)}`).toBe('miss');
      }
    });

    it('never throws when the network fails; answers a typed error or a miss', async () => {
      const adapter = await suite.create();
      for (const query of [...suite.hits, ...suite.misses]) {
        await expect(run(adapter, query, brokenNetwork())).resolves.toBeDefined();
      }
      if (suite.upstreamFailure) {
        const { query, context, kind } = suite.upstreamFailure;
        const outcome = await run(adapter, query, context?.() ?? brokenNetwork());
        expect(outcome.type).toBe('error');
        if (kind && outcome.type === 'error') expect(outcome.error.kind).toBe(kind);
      }
    });

    it('settles promptly once the signal aborts, without throwing', async () => {
      const adapter = await suite.create();
      for (const query of suite.hits) {
        const controller = new AbortController();
        const parts = { ...suite.context?.(), ...hangingNetwork(controller.signal) };
        const pending = adapter.lookup(query, contextOf(parts, controller.signal));
        setTimeout(() => controller.abort(new Error('caller gave up')), 20);
        const started = Date.now();
        const settled = await Promise.race([
          pending.then((outcome) => ({ outcome })),
          new Promise<null>((resolve) => setTimeout(() => resolve(null), 20 + grace)),
        ]);
        expect(settled, `lookup settled within ${grace} ms of the abort`).not.toBeNull();
        if (settled) checkOutcome(adapter, settled.outcome);
        expect(Date.now() - started).toBeLessThan(grace + 500);
      }
    });
  });
}
