/**
 * Apollo (https://docs.apollo.io): People Enrichment and Organization Enrichment.
 *
 * Documented behaviour this adapter relies on:
 * - `POST /api/v1/people/match` with `email`, or `name` + `domain`, or `linkedin_url`;
 *   `GET /api/v1/organizations/enrich?domain=`; the key in the `x-api-key` header.
 * - A match is `200 { person: {…} }` / `200 { organization: {…} }`; no match is a 200 without
 *   the object (`person: null`, or an empty body). A credit is spent only when something is found,
 *   so a miss is free (`billsMisses: false`). Personal emails and phones are revealed only on
 *   request and cost extra: we never ask for them.
 * - A work email the plan has not unlocked comes back as the placeholder
 *   `email_not_unlocked@domain.com`; that is not an address and is dropped.
 * - 401 is a bad key, 403 an endpoint the plan does not include (the free plan), 429 the
 *   fixed-window rate limit (per minute/hour/day, `x-minute-requests-left` …), 402 or a 422 about
 *   credits an exhausted credit balance.
 * - Apollo gives no match score, so confidence comes from how we asked: an email or a profile URL
 *   is a strong key, a name at a domain a weaker one.
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

const APOLLO: ProviderSpec = {
  id: 'apollo',
  defaultBaseUrl: 'https://api.apollo.io',
  meaning: {
    auth: [401, 403],
    quota: [402],
    quotaWhen: { status: 422, message: /credit/i },
    rateLimited: [429],
  },
  // An empty 200 or one without the object is Apollo's documented "no match": the default.
};
const STRONG_KEY_CONFIDENCE = 0.85;
const NAME_AT_DOMAIN_CONFIDENCE = 0.7;
const COMPANY_CONFIDENCE = 0.85;

export type ApolloOptions = ProviderOptions;

/** The person (`apollo`) and company (`apollo_company`) adapters for one key. */
export function createApolloAdapters(options: ApolloOptions): ProviderAdapters {
  return createProviderAdapters(APOLLO, options, (client) => ({
    person: {
      provides: [...PERSON_IDENTITY_FIELDS, 'location', ...EMPLOYER_FIELDS, ...EMPLOYER_FACT_FIELDS],
      lookup(query, context) {
        const body: Record<string, unknown> = { reveal_personal_emails: false, reveal_phone_number: false };
        if (query.by === 'email') body.email = query.email;
        else if (query.by === 'profile_url') body.linkedin_url = query.profile_url;
        else {
          body.name = query.full_name;
          body.domain = query.domain;
        }
        return client.post('/api/v1/people/match', body, context, (answer, now) => {
          const record = recordAt(answer, 'person');
          return record && personCandidate(record, query, now);
        });
      },
    },
    company: {
      provides: [...COMPANY_PROFILE_FIELDS, 'technologies', 'social', 'logo'],
      lookup(query, context) {
        return client.get(
          '/api/v1/organizations/enrich',
          { domain: query.domain },
          context,
          (answer, now) => {
            const record = recordAt(answer, 'organization');
            return record && companyCandidate(record, now);
          },
        );
      },
    },
  }));
}

/** Apollo's locked-address placeholder is not an address. */
function workEmail(value: unknown): string | undefined {
  const address = email(value);
  return address && !address.startsWith('email_not_unlocked@') ? address : undefined;
}

function place(record: Record<string, unknown>): string | undefined {
  const parts = [text(record.city), text(record.state), text(record.country)].filter(
    (p): p is string => p !== undefined,
  );
  return parts.length > 0 ? parts.join(', ') : text(record.raw_address);
}

function personCandidate(
  record: Record<string, unknown>,
  query: PersonQuery,
  now: number,
): Candidate<'person'> {
  const organization = isRecord(record.organization) ? record.organization : {};
  const orgDomain = text(organization.primary_domain) ?? text(organization.website_url);
  const first = text(record.first_name);
  const last = text(record.last_name);
  return {
    fields: compact<PersonFields>({
      full_name: text(record.name) ?? (first && last ? `${first} ${last}` : undefined),
      first_name: first,
      last_name: last,
      title: text(record.title),
      email: workEmail(record.email) ?? (query.by === 'email' ? query.email : undefined),
      profile_url: linkedinProfile(record.linkedin_url),
      location: place(record),
      company_name: text(organization.name),
      company_domain: domainOf(orgDomain),
      company_employee_count: count(organization.estimated_num_employees),
      company_founded: year(organization.founded_year, now),
    }),
    confidence: query.by === 'domain_name' ? NAME_AT_DOMAIN_CONFIDENCE : STRONG_KEY_CONFIDENCE,
  };
}

function companyCandidate(record: Record<string, unknown>, now: number): Candidate<'company'> {
  const domain = text(record.primary_domain) ?? text(record.website_url);
  const named = Array.isArray(record.technology_names) ? record.technology_names.map(text) : [];
  const current = Array.isArray(record.current_technologies)
    ? record.current_technologies.map((entry) => (isRecord(entry) ? text(entry.name) : undefined))
    : [];
  const technologies = [...new Set([...named, ...current].filter((t): t is string => t !== undefined))];
  const social = compact<Record<string, string>>({
    linkedin: httpsUrl(record.linkedin_url),
    x: httpsUrl(record.twitter_url),
    facebook: httpsUrl(record.facebook_url),
  });
  return {
    fields: compact<CompanyFields>({
      name: text(record.name),
      domain: domainOf(domain),
      description: text(record.short_description),
      employee_count: count(record.estimated_num_employees),
      founded: year(record.founded_year, now),
      industry: text(record.industry),
      location: place(record),
      technologies,
      social: Object.keys(social).length > 0 ? (social as Record<string, string>) : undefined,
      logo: httpsUrl(record.logo_url),
    }),
    confidence: COMPANY_CONFIDENCE,
  };
}
