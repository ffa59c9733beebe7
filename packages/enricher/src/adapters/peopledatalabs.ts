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
import type { Candidate, CompanyFields, PersonFields, PersonQuery } from '../adapter.js';
import {
  COMPANY_PROFILE_FIELDS,
  EMPLOYER_FACT_FIELDS,
  EMPLOYER_FIELDS,
  PERSON_IDENTITY_FIELDS,
} from './fields.js';
import { createProviderAdapters, type ProviderAdapters, type ProviderSpec } from './provider-adapters.js';
import {
  compact,
  count,
  domainOf,
  email,
  httpsUrl,
  isRecord,
  linkedinProfile,
  type ProviderOptions,
  recordAt,
  text,
  year,
} from './provider-http.js';

const ID = 'peopledatalabs';
const PEOPLE_DATA_LABS: ProviderSpec = {
  id: ID,
  defaultBaseUrl: 'https://api.peopledatalabs.com',
  meaning: { auth: [401, 403], quota: [402], rateLimited: [429], resetHeader: 'x-ratelimit-reset' },
  missStatuses: [404],
  // A 200 we cannot read is PDL's fault, not a miss we may cache; it was billed all the same.
  unusable: (_body, cost) => ({
    type: 'error',
    error: { kind: 'upstream', message: `${ID}: a 200 without a usable record`, status: 200 },
    cost,
  }),
};

export interface PeopleDataLabsOptions extends ProviderOptions {
  /** PDL's `min_likelihood` (1..10): weaker matches come back as no match, unbilled. @default 6 */
  minLikelihood?: number;
}

/** The person (`peopledatalabs`) and company (`peopledatalabs_company`) adapters for one key. */
export function createPeopleDataLabsAdapters(options: PeopleDataLabsOptions): ProviderAdapters {
  return createProviderAdapters(PEOPLE_DATA_LABS, options, (client) => {
    const minLikelihood = options.minLikelihood ?? 6;
    if (!Number.isInteger(minLikelihood) || minLikelihood < 1 || minLikelihood > 10) {
      throw new TypeError(`${ID}: minLikelihood must be an integer 1..10`);
    }
    const call: typeof client.get = (path, params, context, read) => {
      const query = new URLSearchParams(params);
      query.set('min_likelihood', String(minLikelihood));
      query.set('titlecase', 'true'); // PDL stores names lower-cased; ask for display case
      return client.get(path, query, context, read);
    };
    return {
      person: {
        provides: [...PERSON_IDENTITY_FIELDS, 'location', ...EMPLOYER_FIELDS, ...EMPLOYER_FACT_FIELDS],
        lookup(query, context) {
          const params = new URLSearchParams();
          if (query.by === 'email') params.set('email', query.email);
          else if (query.by === 'profile_url') params.set('profile', query.profile_url);
          else {
            params.set('name', query.full_name);
            params.set('company', query.domain);
          }
          return call('/v5/person/enrich', params, context, (body) => {
            const data = recordAt(body, 'data');
            return data && personCandidate(data, likelihood(body), query);
          });
        },
      },
      company: {
        provides: [...COMPANY_PROFILE_FIELDS, 'social'],
        lookup(query, context) {
          // Unlike the person API, the company record is not wrapped in `data`.
          return call('/v5/company/enrich', { website: query.domain }, context, (body, now) =>
            isRecord(body) ? companyCandidate(body, likelihood(body), now) : null,
          );
        },
      },
    };
  });
}

/** likelihood 1..10 → confidence 0.1..1. */
function likelihood(body: unknown): number {
  const value = isRecord(body) && typeof body.likelihood === 'number' ? body.likelihood : 5;
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
