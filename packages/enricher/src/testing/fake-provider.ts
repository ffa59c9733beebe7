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
import type { AdapterContext, PersonQuery } from '../adapter.js';
import { createGuardedFetch } from '../fetch/guarded-fetch.js';

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
