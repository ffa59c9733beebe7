/**
 * The adapter contract (DESIGN §7): every source of enrichment, built in or paid, is one object of
 * this shape, and every adapter passes the one conformance suite in
 * `testing/describe-adapter.ts`. The orchestrator (`enricher.ts`) owns everything between
 * adapters: the waterfall, the identity gate, caching, single flight, circuit breakers,
 * concurrency and cost budgets. Adapters only answer one normalised query.
 */

/** What an adapter enriches. */
export type AdapterKind = 'person' | 'company';

/**
 * A person query after normalisation (`query.ts`): lower-cased email; registrable domain plus a
 * name with collapsed whitespace; a profile URL in canonical form (`https://www.linkedin.com/in/slug`).
 */
export type PersonQuery =
  | { by: 'email'; email: string; domain: string }
  | { by: 'domain_name'; domain: string; full_name: string }
  | { by: 'profile_url'; profile_url: string };

/** A company query after normalisation: the registrable domain (Public Suffix List). */
export interface CompanyQuery {
  by: 'domain';
  domain: string;
}

export type EnrichmentQuery = PersonQuery | CompanyQuery;

export type QueryOf<K extends AdapterKind> = K extends 'person' ? PersonQuery : CompanyQuery;

/** The query forms, as adapters declare what they accept. */
export type QueryForm = EnrichmentQuery['by'];

/** Person fields an adapter can provide (flat, snake_case; the orchestrator builds the result). */
export interface PersonFields {
  full_name: string;
  first_name: string;
  last_name: string;
  title: string;
  email: string;
  profile_url: string;
  location: string;
  company_name: string;
  company_domain: string;
  company_employee_count: number;
  company_founded: number;
  company_technologies: string[];
}

/** Company fields an adapter can provide. */
export interface CompanyFields {
  name: string;
  domain: string;
  description: string;
  employee_count: number;
  founded: number;
  industry: string;
  location: string;
  technologies: string[];
  /** Network name (`linkedin`, `x`, `facebook`, `github`, …) → profile URL. */
  social: Record<string, string>;
  logo: string;
  /** The site's language: a BCP 47 primary language subtag (`en`, `de`). */
  language: string;
}

export type FieldsOf<K extends AdapterKind> = K extends 'person' ? PersonFields : CompanyFields;

/** One candidate an adapter found: the fields it knows, and how sure it is of them. */
export interface Candidate<K extends AdapterKind> {
  fields: Partial<FieldsOf<K>>;
  /** The adapter's confidence in this candidate as a whole, 0..1. */
  confidence: number;
  /** Per-field confidence where the source says more than the whole (0..1); else `confidence`. */
  fieldConfidence?: Partial<Record<keyof FieldsOf<K>, number>>;
  /** Per field, what within the source gave it (`og:site_name`, `about page text (…)`); shown in `sources`. */
  fieldEvidence?: Partial<Record<keyof FieldsOf<K>, string>>;
}

/** Why an adapter could not answer (a miss is not an error). */
export type AdapterError =
  | { kind: 'rate_limited'; message: string; retryAfterSeconds: number | null }
  | { kind: 'quota'; message: string }
  | { kind: 'auth'; message: string }
  | { kind: 'upstream'; message: string; status?: number }
  | { kind: 'timeout'; message: string };

/** The outcome of one lookup. `cost` is what the call cost in the adapter's units (credits). */
export type LookupOutcome<K extends AdapterKind> =
  | { type: 'hit'; candidates: Candidate<K>[]; cost: number }
  | {
      type: 'miss';
      cost: number;
      /**
       * The subject's source could not be reached (no web server on the company's domain, say):
       * nothing was looked at. Cached and kept out of the circuit breaker like any miss (asking
       * again soon will not change it), but it explains the miss as a source not reached.
       */
      unreachable?: boolean;
    }
  | { type: 'error'; error: AdapterError; cost: number };

/** A DNS lookup an adapter may ask (node:dns/promises shapes; tests inject the testkit's DNS). */
export interface EnrichmentDns {
  resolveMx(domain: string): Promise<Array<{ exchange: string; priority: number }>>;
  resolveTxt(domain: string): Promise<string[][]>;
}

/** What the orchestrator hands an adapter for one lookup. */
export interface AdapterContext {
  /** Aborted when the caller gives up or the per-call deadline passes. */
  signal: AbortSignal;
  /**
   * `fetch` behind the SSRF guard (only public http(s) targets unless the operator allows more),
   * with the project's User-Agent; adapters never use the global fetch directly.
   */
  fetch: typeof fetch;
  dns: EnrichmentDns;
  /** ms since the epoch. */
  now(): number;
}

/** One source of enrichment. */
export interface EnrichmentAdapter<K extends AdapterKind = AdapterKind> {
  /** Stable id (`website`, `dns`, `dataset`, `peopledatalabs`, …), used in `sources` and config. */
  id: string;
  kind: K;
  /** Query forms it answers; the orchestrator never calls it with another. */
  accepts: readonly QueryForm[];
  /** Fields it can fill. */
  provides: readonly (keyof FieldsOf<K>)[];
  /** Cost of one call in credits (0 for the free built-ins). */
  cost: number;
  /** Whether the provider bills a miss (People Data Labs does not, for example). */
  billsMisses: boolean;
  /** How long a hit and a miss may be served from the cache, seconds; 0 is never cached. */
  ttl: { hitSeconds: number; missSeconds: number };
  /** Most lookups in flight at once. */
  concurrency: number;
  /**
   * True for adapters that read the company's own website: their errors and misses explain a
   * miss as `site_unreachable` or `not_found_on_site` (`EnrichOutcome.miss`).
   */
  readsCompanySite?: boolean;
  /**
   * Whether its source is there, asked before each call: false leaves the adapter out of that
   * call as if it were not configured (no report, no miss), e.g. the dataset adapters before a
   * dataset is imported. @default always available
   */
  available?(): boolean | Promise<boolean>;
  lookup(query: QueryOf<K>, context: AdapterContext): Promise<LookupOutcome<K>>;
}
