/**
 * People Data Labs (https://docs.peopledatalabs.com), v5 Person and Company Enrichment APIs.
 *
 * Documented behaviour this adapter relies on:
 * - `GET /v5/person/enrich` with `email`, `profile`, or `name` + `company`; `GET /v5/company/enrich`
 *   with `website`; the key in the `X-Api-Key` header.
 * - 200 is a match (person: `{ status, likelihood, data: {…} }`; company: the record's fields at the
 *   top level next to `status` and `likelihood`), 404 (`error.type` `not_found`) is no match.
 *   PDL charges per match only, so a miss is free (`billsMisses: false`).
 * - `likelihood` 1..10 is PDL's confidence that the record is the one asked for; `min_likelihood`
 *   makes weaker matches a 404.
 * - Errors carry `{ status, error: { type, message } }`: 401 `authentication_error`, 402
 *   `payment_required` (credits used up), 429 `rate_limit_error` (fixed window; `x-ratelimit-reset`
 *   says when it resets), 400 `invalid_request_error`, 5xx internal.
 */
import type {
  AdapterContext,
  AdapterError,
  Candidate,
  CompanyFields,
  CompanyQuery,
  EnrichmentAdapter,
  LookupOutcome,
  PersonFields,
  PersonQuery,
} from '../adapter.js';
import {
  compact,
  count,
  domainOf,
  email,
  failure,
  httpsUrl,
  isRecord,
  linkedinProfile,
  type ProviderOptions,
  type ProviderResponse,
  providerAdapterBasics,
  providerRequest,
  resolveProviderOptions,
  type StatusMeaning,
  text,
  year,
} from './provider-http.js';

const ID = 'peopledatalabs';
const DEFAULT_BASE_URL = 'https://api.peopledatalabs.com';

export interface PeopleDataLabsOptions extends ProviderOptions {
  /** PDL's `min_likelihood` (1..10): weaker matches come back as no match, unbilled. @default 6 */
  minLikelihood?: number;
}

/** The person (`peopledatalabs`) and company (`peopledatalabs_company`) adapters for one key. */
export function createPeopleDataLabsAdapters(options: PeopleDataLabsOptions): {
  person: EnrichmentAdapter<'person'>;
  company: EnrichmentAdapter<'company'>;
} {
  const resolved = resolveProviderOptions(ID, options, DEFAULT_BASE_URL);
  const minLikelihood = options.minLikelihood ?? 6;
  if (!Number.isInteger(minLikelihood) || minLikelihood < 1 || minLikelihood > 10) {
    throw new TypeError(`${ID}: minLikelihood must be an integer 1..10`);
  }
  const headers = { 'x-api-key': resolved.apiKey };
  const common = providerAdapterBasics(ID, resolved);

  async function call(path: string, params: URLSearchParams, context: AdapterContext) {
    params.set('min_likelihood', String(minLikelihood));
    params.set('titlecase', 'true'); // PDL stores names lower-cased; ask for display case
    return providerRequest(
      ID,
      context,
      `${resolved.baseUrl}${path}?${params}`,
      { method: 'GET', headers },
      resolved.timeoutMs,
    );
  }

  const person: EnrichmentAdapter<'person'> = {
    ...common,
    kind: 'person',
    accepts: ['email', 'domain_name', 'profile_url'],
    provides: [
      'full_name',
      'first_name',
      'last_name',
      'title',
      'email',
      'profile_url',
      'location',
      'company_name',
      'company_domain',
      'company_employee_count',
      'company_founded',
    ],
    async lookup(query: PersonQuery, context: AdapterContext): Promise<LookupOutcome<'person'>> {
      const params = new URLSearchParams();
      if (query.by === 'email') params.set('email', query.email);
      else if (query.by === 'profile_url') params.set('profile', query.profile_url);
      else {
        params.set('name', query.full_name);
        params.set('company', query.domain);
      }
      const response = await call('/v5/person/enrich', params, context);
      return outcome(response, resolved.cost, context.now(), (body) => {
        if (!isRecord(body.data)) return null;
        return personCandidate(body.data, likelihood(body), query);
      });
    },
  };

  const company: EnrichmentAdapter<'company'> = {
    ...common,
    // Ids are unique within an enricher: the person adapter has the provider's name.
    id: `${ID}_company`,
    kind: 'company',
    accepts: ['domain'],
    provides: [
      'name',
      'domain',
      'description',
      'employee_count',
      'founded',
      'industry',
      'location',
      'social',
    ],
    async lookup(query: CompanyQuery, context: AdapterContext): Promise<LookupOutcome<'company'>> {
      const response = await call(
        '/v5/company/enrich',
        new URLSearchParams({ website: query.domain }),
        context,
      );
      const now = context.now();
      // Unlike the person API, the company record is not wrapped in `data`.
      return outcome(response, resolved.cost, now, (body) => companyCandidate(body, likelihood(body), now));
    },
  };

  return { person, company };
}

const MEANING: StatusMeaning = {
  auth: [401, 403],
  quota: [402],
  rateLimited: [429],
  resetHeader: 'x-ratelimit-reset',
};

/** PDL's answer → hit, miss or typed error, the same way for both APIs. */
function outcome<K extends 'person' | 'company'>(
  result: { response: ProviderResponse } | { error: AdapterError },
  cost: number,
  now: number,
  candidate: (body: Record<string, unknown>) => Candidate<K> | null,
): LookupOutcome<K> {
  if ('error' in result) return { type: 'error', error: result.error, cost: 0 };
  const { response } = result;
  if (response.status === 404) return { type: 'miss', cost: 0 };
  if (response.status !== 200) return { type: 'error', error: failure(ID, response, MEANING, now), cost: 0 };
  const found = isRecord(response.body) ? candidate(response.body) : null;
  if (!found || Object.keys(found.fields).length === 0) {
    // A 200 we cannot read is PDL's fault, not a miss we may cache; it was billed all the same.
    return {
      type: 'error',
      error: { kind: 'upstream', message: `${ID}: a 200 without a usable record`, status: 200 },
      cost,
    };
  }
  return { type: 'hit', candidates: [found], cost };
}

/** likelihood 1..10 → confidence 0.1..1. */
function likelihood(body: Record<string, unknown>): number {
  const value = typeof body.likelihood === 'number' ? body.likelihood : 5;
  return Math.min(1, Math.max(0.1, value / 10));
}

function personCandidate(
  data: Record<string, unknown>,
  confidence: number,
  query: PersonQuery,
): Candidate<'person'> {
  const companyWebsite = text(data.job_company_website);
  const emails = Array.isArray(data.emails) ? data.emails : [];
  const firstListed = emails
    .map((entry) => (isRecord(entry) ? email(entry.address) : undefined))
    .find(Boolean);
  // The address we asked with is the one we know belongs to this record; else PDL's work email.
  const knownEmail = query.by === 'email' ? query.email : (email(data.work_email) ?? firstListed);
  const fields = compact<PersonFields>({
    full_name: text(data.full_name),
    first_name: text(data.first_name),
    last_name: text(data.last_name),
    title: text(data.job_title),
    email: knownEmail,
    profile_url: linkedinProfile(data.linkedin_url),
    location: text(data.location_name),
    company_name: text(data.job_company_name),
    company_domain: domainOf(companyWebsite),
    company_employee_count: count(data.job_company_employee_count),
    company_founded: count(data.job_company_founded),
  });
  return { fields, confidence };
}

function companyCandidate(
  body: Record<string, unknown>,
  confidence: number,
  now: number,
): Candidate<'company'> {
  const website = text(body.website);
  const location = isRecord(body.location) ? text(body.location.name) : undefined;
  const social = compact<Record<string, string>>({
    linkedin: httpsUrl(body.linkedin_url),
    x: httpsUrl(body.twitter_url),
    facebook: httpsUrl(body.facebook_url),
  });
  const fields = compact<CompanyFields>({
    name: text(body.display_name) ?? text(body.name),
    domain: domainOf(website),
    description: text(body.summary) ?? text(body.headline),
    employee_count: count(body.employee_count),
    founded: year(body.founded, now),
    industry: text(body.industry),
    location,
    social: Object.keys(social).length > 0 ? (social as Record<string, string>) : undefined,
  });
  return { fields, confidence };
}
