/**
 * A paid provider's API played on loopback for the adapter tests: a testkit HTTP server that
 * answers each `METHOD /path` with a recorded fixture (test-data/providers/<provider>/<name>.json,
 * the documented response shapes) chosen from the request, and records every request so a test
 * can check what the adapter sent (method, path, query, headers, body).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  type FakeHttpHeaders,
  type FakeHttpResponse,
  startWebhookReceiver,
  type WebhookReceiver,
  type WebhookRequest,
} from '@svc/testkit';
import type {
  AdapterContext,
  AdapterKind,
  EnrichmentAdapter,
  FieldsOf,
  LookupOutcome,
  PersonFields,
  PersonQuery,
  QueryOf,
} from '../adapter.js';
import { createGuardedFetch } from '../fetch/guarded-fetch.js';
import { type ContextParts, describeAdapter } from './describe-adapter.js';

const FIXTURES = fileURLToPath(new URL('../../test-data/providers/', import.meta.url));

/** One request as the handler sees it: the parsed URL and the JSON body (null when none). */
export interface ProviderRequest {
  method: string;
  url: URL;
  headers: WebhookRequest['headers'];
  json: unknown;
}

export type ProviderHandler = (request: ProviderRequest) => FakeHttpResponse | 'hang';

/** A recorded fixture as a response: its bytes, a JSON content type, the status and extra headers. */
export function fixture(
  provider: string,
  name: string,
  status = 200,
  headers: FakeHttpHeaders = {},
): FakeHttpResponse {
  const body = readFileSync(`${FIXTURES}${provider}/${name}.json`);
  return { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers }, body };
}

export interface FakeProvider {
  /** The base URL to give the adapter (`http://127.0.0.1:port`). */
  url: string;
  receiver: WebhookReceiver;
  /** Every request so far, parsed. */
  requests(): ProviderRequest[];
  /** Runs one lookup in `providerContext()`: its outcome, and the request it sent (if any). */
  lookup<K extends AdapterKind>(
    adapter: EnrichmentAdapter<K>,
    query: QueryOf<K>,
  ): Promise<{ outcome: LookupOutcome<K>; request: ProviderRequest | undefined }>;
  /** Replaces the handler of `METHOD /path` (e.g. to make the next lookups fail). */
  setRoute(route: string, handler: ProviderHandler): void;
  close(): Promise<void>;
}

function parse(request: WebhookRequest): ProviderRequest {
  let json: unknown = null;
  if (request.body.length > 0) {
    try {
      json = JSON.parse(request.body.toString('utf8'));
    } catch {
      json = null;
    }
  }
  return {
    method: request.method,
    url: new URL(request.path, 'http://provider.test'),
    headers: request.headers,
    json,
  };
}

/** Starts the fake API with `routes` keyed `METHOD /path` (query ignored in the key). */
export async function startFakeProvider(routes: Record<string, ProviderHandler>): Promise<FakeProvider> {
  const table = new Map(Object.entries(routes));
  const receiver = await startWebhookReceiver({
    respond: (request) => {
      const parsed = parse(request);
      const handler = table.get(`${parsed.method} ${parsed.url.pathname}`);
      if (!handler) return { status: 404, headers: { 'content-type': 'text/plain' }, body: 'no such route' };
      return handler(parsed);
    },
  });
  return {
    url: receiver.url,
    receiver,
    requests: () => receiver.deliveries.map(parse),
    async lookup(adapter, query) {
      const before = receiver.deliveries.length;
      const outcome = await adapter.lookup(query, providerContext());
      const request = receiver.deliveries[before];
      return { outcome, request: request && parse(request) };
    },
    setRoute: (route, handler) => {
      table.set(route, handler);
    },
    close: () => receiver.close(),
  };
}

/** Narrows a parsed JSON body to an object for route handlers. */
export function isRecordLike(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** When the provider tests' lookups happen (their fixtures' rate-limit resets are relative to it). */
export const PROVIDER_TEST_NOW = Date.parse('2026-11-23T12:00:00Z');

/** The guarded fetch, allowed to reach the fake provider on loopback (the SSRF guard refuses it otherwise). */
export function loopbackFetch(): Pick<AdapterContext, 'fetch'> {
  return { fetch: createGuardedFetch({ isAllowedAddress: (ip) => ip === '127.0.0.1' }) };
}

/** A lookup context for a fake provider: loopback fetch, no DNS answers, the fixed clock. */
export function providerContext(): AdapterContext {
  return {
    signal: new AbortController().signal,
    dns: { resolveMx: async () => [], resolveTxt: async () => [] },
    now: () => PROVIDER_TEST_NOW,
    ...loopbackFetch(),
  };
}

/** The person query of an address. */
export function emailQuery(address: string): Extract<PersonQuery, { by: 'email' }> {
  return { by: 'email', email: address, domain: address.split('@')[1] ?? '' };
}

/** A paid lookup's hit of one candidate, as the adapters answer it (one credit by default). */
export function paidHit<K extends AdapterKind>(
  confidence: number,
  fields: Partial<FieldsOf<K>>,
  cost = 1,
): LookupOutcome<K> {
  return { type: 'hit', cost, candidates: [{ confidence, fields }] };
}

/**
 * Dana Whitfield of Acme Cloud, the person every provider's fixtures describe, as the adapters
 * map her (each provider adds its own title and what it knows of the employer).
 */
export const DANA_WHITFIELD = {
  full_name: 'Dana Whitfield',
  first_name: 'Dana',
  last_name: 'Whitfield',
  email: 'dana.whitfield@example.com',
  profile_url: 'https://www.linkedin.com/in/dana-whitfield',
  location: 'Austin, Texas, United States',
  company_name: 'Acme Cloud',
  company_domain: 'example.com',
} as const satisfies Partial<PersonFields>;

/**
 * The conformance suite for a paid provider's person and company adapters, on the inputs every
 * fake provider answers alike: Dana Whitfield by address and by profile, and `nameHit` (a name at
 * a domain its fixtures know), are found; nobody@example.com and "Nobody Known" at example.com are
 * not; broken@example.com fails upstream. The company example.com is found, example.net is not.
 */
export function describePaidProvider(
  name: string,
  create: () => { person: EnrichmentAdapter<'person'>; company: EnrichmentAdapter<'company'> },
  nameHit: { domain: string; full_name: string },
  context: () => ContextParts = loopbackFetch,
): void {
  describeAdapter(`${name} (person)`, {
    create: () => create().person,
    hits: [
      emailQuery(DANA_WHITFIELD.email),
      { by: 'profile_url', profile_url: DANA_WHITFIELD.profile_url },
      { by: 'domain_name', ...nameHit },
    ],
    misses: [
      emailQuery('nobody@example.com'),
      { by: 'domain_name', domain: 'example.com', full_name: 'Nobody Known' },
    ],
    context,
    upstreamFailure: { query: emailQuery('broken@example.com'), context, kind: 'upstream' },
  });
  describeAdapter(`${name} (company)`, {
    create: () => create().company,
    hits: [{ by: 'domain', domain: 'example.com' }],
    misses: [{ by: 'domain', domain: 'example.net' }],
    context,
  });
}
