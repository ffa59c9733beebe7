/**
 * Hunter (https://hunter.io/api-documentation/v2): Email Enrichment, Email Finder and Company
 * Enrichment.
 *
 * Documented behaviour this adapter relies on:
 * - `GET /v2/people/find?email=` or `?linkedin_handle=` (Email Enrichment), `GET /v2/email-finder?
 *   domain=&full_name=` (a name at a domain → the likely address, with a 0..100 `score`),
 *   `GET /v2/companies/find?domain=` (Company Enrichment); the key in the `X-API-KEY` header.
 * - Answers are `{ data, meta }`; failures `{ errors: [{ id, code, details }] }`.
 * - 404 is no match (the enrichments; the Email Finder also answers 200 with `data.email: null`);
 *   451 `claimed_email` means the owner asked Hunter to stop processing the address, and asks us
 *   to stop too: we treat it as a miss and keep nothing.
 * - 401 is a bad key, 403 is the per-second/per-minute RATE limit, 429 is the monthly USAGE limit
 *   (a quota, not a rate limit). Hunter sends no Retry-After on 403; the limit is per second.
 * - Failed lookups are free: a miss is not billed (`billsMisses: false`).
 */
import type { Candidate, CompanyFields, PersonFields, PersonQuery } from '../adapter.js';
import { COMPANY_PROFILE_FIELDS, EMPLOYER_FIELDS, PERSON_IDENTITY_FIELDS } from './fields.js';
import { createProviderAdapters, type ProviderAdapters, type ProviderSpec } from './provider-adapters.js';
import {
  compact,
  count,
  domainOf,
  email,
  httpsUrl,
  isRecord,
  linkedinProfile,
  linkedinSlug,
  type ProviderOptions,
  recordAt,
  text,
  year,
} from './provider-http.js';

const HUNTER: ProviderSpec = {
  id: 'hunter',
  defaultBaseUrl: 'https://api.hunter.io',
  meaning: { auth: [401], quota: [429], rateLimited: [403] },
  missStatuses: [404, 451],
  // A 200 whose `data` found nobody is a miss; one without a `data` object is Hunter's fault.
  unusable: (body) =>
    recordAt(body, 'data')
      ? { type: 'miss', cost: 0 }
      : {
          type: 'error',
          error: { kind: 'upstream', message: 'hunter: a 200 without a data object', status: 200 },
          cost: 0,
        },
};
/** Email Enrichment gives no score: an exact match on the address is strong, a `fuzzy` one less so. */
const EXACT_CONFIDENCE = 0.9;
const FUZZY_CONFIDENCE = 0.6;

export type HunterOptions = ProviderOptions;

/** The person (`hunter`) and company (`hunter_company`) adapters for one key. */
export function createHunterAdapters(options: HunterOptions): ProviderAdapters {
  return createProviderAdapters(HUNTER, options, (client) => ({
    person: {
      provides: [...PERSON_IDENTITY_FIELDS, 'location', ...EMPLOYER_FIELDS],
      async lookup(query, context) {
        if (query.by === 'domain_name') {
          const params = { domain: query.domain, full_name: query.full_name };
          return client.get('/v2/email-finder', params, context, (body) => {
            const data = recordAt(body, 'data');
            return data && finderCandidate(data, query.domain);
          });
        }
        const params: Record<string, string> = {};
        if (query.by === 'email') params.email = query.email;
        else {
          const slug = linkedinSlug(query.profile_url);
          if (!slug) return { type: 'miss', cost: 0 }; // not a LinkedIn profile: Hunter only knows those
          params.linkedin_handle = slug;
        }
        return client.get('/v2/people/find', params, context, (body) => {
          const data = recordAt(body, 'data');
          return data && enrichmentCandidate(data, query);
        });
      },
    },
    company: {
      provides: [...COMPANY_PROFILE_FIELDS, 'technologies', 'social', 'logo'],
      lookup(query, context) {
        return client.get('/v2/companies/find', { domain: query.domain }, context, (body, now) => {
          const data = recordAt(body, 'data');
          return data && companyCandidate(data, now);
        });
      },
    },
  }));
}

/** Email Finder: `{ first_name, last_name, email, score, domain, position, linkedin_url, company }`. */
function finderCandidate(data: Record<string, unknown>, domain: string): Candidate<'person'> | null {
  const address = email(data.email);
  if (!address) return null; // Hunter found no address for this name: nothing to say
  const first = text(data.first_name);
  const last = text(data.last_name);
  const score = typeof data.score === 'number' ? data.score : 50;
  return {
    fields: compact<PersonFields>({
      full_name: first && last ? `${first} ${last}` : undefined,
      first_name: first,
      last_name: last,
      email: address,
      title: text(data.position),
      profile_url: linkedinProfile(data.linkedin_url),
      company_name: text(data.company),
      company_domain: domainOf(data.domain) ?? domain,
    }),
    confidence: Math.min(1, Math.max(0.01, score / 100)),
  };
}

/** Email Enrichment: `{ name: { fullName, givenName, familyName }, email, location, employment, linkedin, fuzzy }`. */
function enrichmentCandidate(data: Record<string, unknown>, query: PersonQuery): Candidate<'person'> {
  const name = isRecord(data.name) ? data.name : {};
  const employment = isRecord(data.employment) ? data.employment : {};
  const linkedin = isRecord(data.linkedin) ? data.linkedin : {};
  const employer = text(employment.domain);
  return {
    fields: compact<PersonFields>({
      full_name: text(name.fullName),
      first_name: text(name.givenName),
      last_name: text(name.familyName),
      title: text(employment.title),
      email: email(data.email) ?? (query.by === 'email' ? query.email : undefined),
      profile_url:
        linkedinProfile(linkedin.handle) ?? (query.by === 'profile_url' ? query.profile_url : undefined),
      location: text(data.location),
      company_name: text(employment.name),
      company_domain: domainOf(employer),
    }),
    confidence: data.fuzzy === true ? FUZZY_CONFIDENCE : EXACT_CONFIDENCE,
  };
}

/** Company Enrichment: `{ name, domain, description, foundedYear, category, location, logo, tech, metrics, linkedin, twitter, facebook }`. */
function companyCandidate(data: Record<string, unknown>, now: number): Candidate<'company'> {
  const category = isRecord(data.category) ? data.category : {};
  const metrics = isRecord(data.metrics) ? data.metrics : {};
  const handle = (network: string) => {
    const value = data[network];
    return isRecord(value) ? text(value.handle) : undefined;
  };
  const linkedin = handle('linkedin');
  const twitter = handle('twitter');
  const facebook = handle('facebook');
  const social = compact<Record<string, string>>({
    // LinkedIn handles carry their kind (`company/hunterio`); the others are bare names.
    linkedin: linkedin ? httpsUrl(`www.linkedin.com/${linkedin.replace(/^\/+/, '')}`) : undefined,
    x: twitter ? `https://x.com/${twitter.replace(/^@/, '')}` : undefined,
    facebook: facebook ? `https://www.facebook.com/${facebook}` : undefined,
  });
  const domain = text(data.domain);
  const technologies = Array.isArray(data.tech)
    ? data.tech.map(text).filter((t): t is string => t !== undefined)
    : [];
  return {
    fields: compact<CompanyFields>({
      name: text(data.name),
      domain: domainOf(domain),
      description: text(data.description),
      // Hunter gives a head-count RANGE (`11-50`) as a string; only an exact number is an employee count.
      employee_count: count(metrics.employees),
      founded: year(data.foundedYear, now),
      industry: text(category.industry),
      location: text(data.location),
      technologies,
      social: Object.keys(social).length > 0 ? (social as Record<string, string>) : undefined,
      logo: httpsUrl(data.logo),
    }),
    confidence: EXACT_CONFIDENCE,
  };
}
