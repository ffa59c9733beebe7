import type { Candidate, EnrichmentAdapter, PersonFields, PersonQuery } from '../../adapter.js';
import type { SiteCrawl } from './company.js';
import { crawlerFor, positiveInteger, thrownOutcome } from './crawler.js';
import { type LdPerson, readJsonLd } from './jsonld.js';
import { personProfile } from './social.js';
import type { WebsiteAdapterOptions } from './website.js';

const PROVIDES: readonly (keyof PersonFields)[] = [
  'full_name',
  'first_name',
  'last_name',
  'title',
  'email',
  'profile_url',
  'company_name',
  'company_domain',
];

/**
 * "Dr. José  García-López" → "jose garcia-lopez": names compared without case, accents or
 * honorifics, since a site writes "José" where a CRM export says "Jose" (stricter than the
 * dataset's `nameKey`, which keeps accents because it compares a user's own spellings).
 */
export function nameMatchKey(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/\b(dr|prof|mr|mrs|ms|mme|m|herr|frau|sr|sra)\.?\s+/g, '')
    .replace(/[^\p{L}\p{N}\s-]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

function fullName(person: LdPerson): string | undefined {
  return person.name ?? ([person.givenName, person.familyName].filter(Boolean).join(' ') || undefined);
}

// A person a company lists about itself on its own site, matched by their full name or the
// exact email: the site is the authority on who works there, but pages go stale.
const CONFIDENCE = { byName: 0.8, byEmail: 0.9 } as const;

/** The candidate for the person a query names, from the Person nodes of a crawl. */
export function personCandidate(crawl: SiteCrawl, query: PersonQuery): Candidate<'person'> | null {
  const { organizations, people } = readJsonLd(crawl.pages.flatMap((p) => p.jsonLd));
  const wantedEmail = query.by === 'email' ? query.email.toLowerCase() : undefined;
  const wantedName = query.by === 'domain_name' ? nameMatchKey(query.full_name) : undefined;
  const match = people.find((person) => {
    if (wantedEmail) return person.email?.toLowerCase() === wantedEmail;
    const name = fullName(person);
    return name !== undefined && nameMatchKey(name) === wantedName;
  });
  if (!match) return null;
  const name = fullName(match);
  const fields: Partial<PersonFields> = {
    full_name: name,
    first_name: match.givenName,
    last_name: match.familyName,
    title: match.jobTitle,
    email: match.email?.toLowerCase(),
    profile_url: match.sameAs.map(personProfile).find((url): url is string => url !== null),
    company_name: match.worksFor ?? organizations.find((o) => o.name)?.name,
    company_domain: crawl.domain,
  };
  for (const key of Object.keys(fields) as (keyof PersonFields)[]) {
    if (fields[key] === undefined) delete fields[key];
  }
  return { fields, confidence: wantedEmail ? CONFIDENCE.byEmail : CONFIDENCE.byName };
}

/**
 * The website person adapter (no key): a person the company's own site declares as a schema.org
 * Person (team and about pages, `employee`/`founder` of its Organization), found by domain + full
 * name or by the exact email. Pass the company adapter's `crawler` to share robots.txt and limits.
 */
export function createWebsitePersonAdapter(options: WebsiteAdapterOptions = {}): EnrichmentAdapter<'person'> {
  const crawler = crawlerFor('website person adapter', options);
  const concurrency = Math.max(1, positiveInteger('concurrency', options.concurrency, 8));
  return {
    id: 'website_people',
    kind: 'person',
    readsCompanySite: true,
    accepts: ['domain_name', 'email'],
    provides: PROVIDES,
    cost: 0,
    billsMisses: false,
    ttl: options.ttl ?? { hitSeconds: 7 * 86_400, missSeconds: 86_400 },
    concurrency,
    async lookup(query, context) {
      if (query.by === 'profile_url') return { type: 'miss', cost: 0 };
      try {
        const crawl = await crawler.crawl(query.domain, context);
        if ('type' in crawl) return crawl;
        const candidate = personCandidate(crawl, query);
        return candidate ? { type: 'hit', candidates: [candidate], cost: 0 } : { type: 'miss', cost: 0 };
      } catch (error) {
        return thrownOutcome(error, context);
      }
    },
  };
}
