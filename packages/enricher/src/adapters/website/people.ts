import type { Candidate, EnrichmentAdapter, PersonFields, PersonQuery } from '../../adapter.js';
import { EMPLOYER_FIELDS, PERSON_IDENTITY_FIELDS } from '../fields.js';
import type { SiteCrawl } from './company.js';
import { type LdPerson, readJsonLd } from './jsonld.js';
import { personProfile } from './social.js';
import type { TeamCard } from './team-cards.js';
import { createSiteAdapter, type WebsiteAdapterOptions } from './website.js';

const PROVIDES: readonly (keyof PersonFields)[] = [...PERSON_IDENTITY_FIELDS, ...EMPLOYER_FIELDS];

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

// A card of plain HTML says less than a Person the site declares: its name, title and links are
// read from layout. An exact address on it is strong evidence; a name alone (with the domain) weaker.
const CARD_CONFIDENCE = { byName: 0.65, byEmail: 0.85 } as const;

/** Addresses nobody owns alone: a card showing one is showing where to write, not whose it is. */
const SHARED_MAILBOX =
  /^(?:info|office|contact|kontakt|hello|hi|mail|team|press|presse|media|sales|support|help|service|jobs|careers|karriere|admin|webmaster|post|buero|büro|anfrage|empfang|reception|enquiries|inquiries|hr|billing|accounts|noreply|no-reply)$/;

/**
 * Whether an address on a card is that person's own: on the site's registrable domain (an address
 * elsewhere may be an agency's or a private one), not a shared mailbox, and its local part naming
 * them (a first or last name, or an initial with the last name: `jane.roe`, `jroe`, `j.roe`, `roe`).
 */
function ownAddress(email: string, name: string, domain: string): boolean {
  const at = email.lastIndexOf('@');
  const local = email.slice(0, at);
  const host = email.slice(at + 1);
  if (host !== domain && !host.endsWith(`.${domain}`)) return false;
  if (SHARED_MAILBOX.test(local)) return false;
  const parts = nameMatchKey(name)
    .split(/[\s-]+/)
    .filter((part) => part.length >= 3);
  const letters = local.normalize('NFKD').replace(/[^a-z]/g, '');
  return parts.some((part) => letters.includes(part.replace(/[^a-z]/g, '')));
}

/** Two cards of one person (a page repeats its team for phones, a team and an about page both list it). */
function samePerson(a: TeamCard, b: TeamCard): boolean {
  if (nameMatchKey(a.name) !== nameMatchKey(b.name)) return false;
  const titles = [a.title, b.title].filter((t): t is string => t !== null).map((t) => t.toLowerCase());
  return new Set(titles).size <= 1;
}

/**
 * The candidate for the person a query names, from the cards of the site's team and about pages:
 * by the exact address (on one person's card, and naming them), or by the full name with the
 * domain. Cards that disagree about a name (two people called Jane Roe, two titles) match nothing.
 */
export function cardCandidate(crawl: SiteCrawl, query: PersonQuery): Candidate<'person'> | null {
  if (query.by === 'profile_url') return null;
  const cards = crawl.pages.flatMap((page) => (page.cards ?? []).map((card) => ({ card, url: page.url })));
  const matches =
    query.by === 'email'
      ? cards.filter(
          ({ card }) => card.emails.includes(query.email) && ownAddress(query.email, card.name, crawl.domain),
        )
      : cards.filter(({ card }) => nameMatchKey(card.name) === nameMatchKey(query.full_name));
  const first = matches[0];
  if (!first || !matches.every(({ card }) => samePerson(card, first.card))) return null;
  const { card, url } = matches.find(({ card }) => card.title !== null) ?? first;
  const email =
    query.by === 'email'
      ? query.email
      : card.emails.find((address) => ownAddress(address, card.name, crawl.domain));
  const fields: Partial<PersonFields> = { full_name: card.name, company_domain: crawl.domain };
  if (card.title !== null) fields.title = card.title;
  if (email !== undefined) fields.email = email;
  if (card.profileUrl !== null) fields.profile_url = card.profileUrl;
  const evidence = `team page card (${url})`;
  const fieldEvidence: Partial<Record<keyof PersonFields, string>> = {};
  for (const key of Object.keys(fields) as (keyof PersonFields)[]) {
    if (key !== 'company_domain') fieldEvidence[key] = evidence;
  }
  return {
    fields,
    confidence: query.by === 'email' ? CARD_CONFIDENCE.byEmail : CARD_CONFIDENCE.byName,
    fieldEvidence,
  };
}

/**
 * The website person adapter (no key): a person the company's own site declares as a schema.org
 * Person (team and about pages, `employee`/`founder` of its Organization), found by domain + full
 * name or by the exact email. Pass the company adapter's `crawler` to share robots.txt and limits.
 */
export function createWebsitePersonAdapter(options: WebsiteAdapterOptions = {}): EnrichmentAdapter<'person'> {
  return createSiteAdapter(
    'website person adapter',
    options,
    { id: 'website_people', kind: 'person', accepts: ['domain_name', 'email'], provides: PROVIDES },
    // The site's own structured data first; cards of plain HTML only when it has none for them.
    (crawl, query) => personCandidate(crawl, query) ?? cardCandidate(crawl, query),
  );
}
