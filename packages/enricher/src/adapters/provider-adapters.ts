/**
 * The person and company adapters of one paid provider, built one way for every provider: the
 * options resolved once, the key in the `x-api-key` header, one request per lookup through
 * `providerRequest`, and its answer read into hit, miss or typed error by `providerOutcome`. A
 * provider file says only what is its own: its paths and parameters, which statuses mean what,
 * what a 200 without a usable record is, and how its records map to fields.
 */
import type {
  AdapterContext,
  AdapterKind,
  Candidate,
  EnrichmentAdapter,
  FieldsOf,
  LookupOutcome,
  QueryOf,
} from '../adapter.js';
import {
  failure,
  type ProviderOptions,
  type ProviderResult,
  providerRequest,
  resolveProviderOptions,
  type StatusMeaning,
} from './provider-http.js';

/** A lookup that found nothing, or failed: the same for both kinds. */
export type NoHit = Exclude<LookupOutcome<AdapterKind>, { type: 'hit' }>;

/** What one paid provider documents about its answers. */
export interface ProviderSpec {
  /** The person adapter's id; the company adapter's is `<id>_company`. */
  id: string;
  defaultBaseUrl: string;
  meaning: StatusMeaning;
  /** Statuses the provider documents as "no match" (unbilled misses). @default none */
  missStatuses?: readonly number[];
  /**
   * What a 200 is that holds no candidate with fields (`body` is the parsed answer, `cost` the
   * credits of a match). @default an unbilled miss
   */
  unusable?(body: unknown, cost: number): NoHit;
}

/** Reads a 200's parsed body into the candidate it holds; null when it holds none. */
export type ReadCandidate<K extends AdapterKind> = (body: unknown, now: number) => Candidate<K> | null;

/** One lookup's request to the provider, answered as the lookup's outcome. */
export interface ProviderClient {
  /** `GET <baseUrl><path>?<params>`. */
  get<K extends AdapterKind>(
    path: string,
    params: Record<string, string> | URLSearchParams,
    context: AdapterContext,
    read: ReadCandidate<K>,
  ): Promise<LookupOutcome<K>>;
  /** `POST <baseUrl><path>` with a JSON body. */
  post<K extends AdapterKind>(
    path: string,
    json: Record<string, unknown>,
    context: AdapterContext,
    read: ReadCandidate<K>,
  ): Promise<LookupOutcome<K>>;
}

/** What a provider's adapter of one kind provides, and how it looks one query up. */
export interface ProviderLookup<K extends AdapterKind> {
  provides: readonly (keyof FieldsOf<K>)[];
  lookup(query: QueryOf<K>, context: AdapterContext): Promise<LookupOutcome<K>>;
}

export interface ProviderAdapters {
  person: EnrichmentAdapter<'person'>;
  company: EnrichmentAdapter<'company'>;
}

/**
 * The provider's two adapters for one key. `lookups` runs after the options are validated (so a
 * bad key fails first) and gets the client its lookups ask through. Misses are unbilled: People
 * Data Labs, Hunter and Apollo all charge per match only.
 */
export function createProviderAdapters(
  provider: ProviderSpec,
  options: ProviderOptions,
  lookups: (client: ProviderClient) => {
    person: ProviderLookup<'person'>;
    company: ProviderLookup<'company'>;
  },
): ProviderAdapters {
  const resolved = resolveProviderOptions(provider.id, options, provider.defaultBaseUrl);
  const headers = { 'x-api-key': resolved.apiKey };
  const ask = async <K extends AdapterKind>(
    url: string,
    init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string },
    context: AdapterContext,
    read: ReadCandidate<K>,
  ): Promise<LookupOutcome<K>> => {
    const result = await providerRequest(provider.id, context, url, init, resolved.timeoutMs);
    return providerOutcome(provider, result, resolved.cost, context.now(), read);
  };
  const client: ProviderClient = {
    get: (path, params, context, read) =>
      ask(
        `${resolved.baseUrl}${path}?${new URLSearchParams(params)}`,
        { method: 'GET', headers },
        context,
        read,
      ),
    post: (path, json, context, read) =>
      ask(
        `${resolved.baseUrl}${path}`,
        {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify(json),
        },
        context,
        read,
      ),
  };
  const { person, company } = lookups(client);
  const common = {
    cost: resolved.cost,
    billsMisses: false,
    ttl: resolved.ttl,
    concurrency: resolved.concurrency,
  };
  return {
    person: {
      ...common,
      id: provider.id,
      kind: 'person',
      accepts: ['email', 'domain_name', 'profile_url'],
      ...person,
    },
    // Ids are unique within an enricher: the person adapter has the provider's name.
    company: { ...common, id: `${provider.id}_company`, kind: 'company', accepts: ['domain'], ...company },
  };
}

/** A provider's answer → hit, miss or typed error (a failed request is an unbilled error). */
export function providerOutcome<K extends AdapterKind>(
  provider: ProviderSpec,
  result: ProviderResult,
  cost: number,
  now: number,
  read: ReadCandidate<K>,
): LookupOutcome<K> {
  if ('error' in result) return { type: 'error', error: result.error, cost: 0 };
  const { response } = result;
  if (provider.missStatuses?.includes(response.status)) return { type: 'miss', cost: 0 };
  if (response.status !== 200) {
    return { type: 'error', error: failure(provider.id, response, provider.meaning, now), cost: 0 };
  }
  const found = read(response.body, now);
  if (!found || Object.keys(found.fields).length === 0) {
    return provider.unusable ? provider.unusable(response.body, cost) : { type: 'miss', cost: 0 };
  }
  return { type: 'hit', candidates: [found], cost };
}
