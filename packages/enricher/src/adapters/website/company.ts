import type { Candidate, CompanyFields } from '../../adapter.js';
import { extractPage, type PageFacts } from './extract.js';
import { detectTechnologies, type SiteSignals } from './fingerprint.js';
import { type LdOrganization, readJsonLd } from './jsonld.js';
import { socialProfiles } from './social.js';

/** What a site gave: its pages (the homepage first) and the homepage's response headers and cookies. */
export interface SiteCrawl {
  domain: string;
  pages: PageFacts[];
  headers: Record<string, string>;
  cookies: string[];
}

type Field = keyof CompanyFields;

// How sure each source is of what it states. A site's own JSON-LD is deliberate, structured
// self-description; meta tags are usually right but often the page's, not the company's; the
// <title> and phrases in running text are guesses.
const CONFIDENCE = {
  jsonLd: 0.9,
  ogSiteName: 0.8,
  applicationName: 0.7,
  title: 0.5,
  metaDescription: 0.75,
  textYear: 0.6,
  textEmployees: 0.5,
  social: 0.85,
  logoImage: 0.7,
  icon: 0.5,
  technologies: 0.8,
  domain: 1,
} as const;

const FOUNDED_PHRASES = [
  /\b(?:founded|established|incorporated|started)(?: in)? ((?:1[6-9]|20)\d{2})\b/i,
  /\bsince ((?:1[6-9]|20)\d{2})\b/i,
  /\bgegründet(?: im Jahr| im| in)? ((?:1[6-9]|20)\d{2})\b/i,
  /\bseit ((?:1[6-9]|20)\d{2})\b/i,
  /\b(?:fondée?|créée?) en ((?:1[6-9]|20)\d{2})\b/i,
  /\b(?:fundada|fundado|creada) en ((?:1[6-9]|20)\d{2})\b/i,
];

// Only counts stated as staff: "250 employees", "over 1,200 Mitarbeiter", "40 salariés".
const EMPLOYEE_PHRASE =
  /\b(\d{1,3}(?:[,.]\d{3})+|\d{1,6})\s*\+?\s*(?:employees|staff members|team members|mitarbeiter(?:innen|\*innen)?|mitarbeitende|salariés|collaborateurs|empleados)\b/i;

function firstMeta(pages: PageFacts[], key: string): string | undefined {
  for (const page of pages) {
    const value = page.meta[key]?.find((v) => v !== '');
    if (value) return value;
  }
  return undefined;
}

/** The organisation that is the site's own: the one whose url is on the domain, else the first with a name. */
function ownOrganization(orgs: LdOrganization[], domain: string): LdOrganization | undefined {
  const onDomain = orgs.find((o) => {
    if (!o.url) return false;
    try {
      const host = new URL(o.url).hostname.toLowerCase();
      return host === domain || host.endsWith(`.${domain}`);
    } catch {
      return false;
    }
  });
  return onDomain ?? orgs.find((o) => o.name !== undefined);
}

/** Merges the fields of every organisation node describing the site, the chosen one first. */
function mergeOrganizations(primary: LdOrganization, all: LdOrganization[]): LdOrganization {
  const same = all.filter((o) => o === primary || (o.name !== undefined && o.name === primary.name));
  const merged: LdOrganization = { ...primary, sameAs: [] };
  for (const org of same) {
    for (const key of Object.keys(org) as (keyof LdOrganization)[]) {
      if (key === 'sameAs') merged.sameAs.push(...org.sameAs);
      else if (merged[key] === undefined) (merged as unknown as Record<string, unknown>)[key] = org[key];
    }
  }
  return merged;
}

/** "Acme — Widgets for everyone" → "Acme": the part of a title before its first separator. */
function nameFromTitle(title: string): string | undefined {
  const first = title.split(/\s[|\-–—:·•]\s/)[0]?.trim();
  return first && first.length <= 80 ? first : undefined;
}

function resolveUrl(raw: string | undefined, base: string): string | undefined {
  if (!raw) return undefined;
  try {
    const url = new URL(raw, base);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** The company candidate a crawl supports, or null when the site says nothing about itself. */
export function companyCandidate(crawl: SiteCrawl): Candidate<'company'> | null {
  const { pages, domain } = crawl;
  const home = pages[0];
  if (!home) return null;
  const fields: Partial<CompanyFields> = { domain };
  const confidence: Partial<Record<Field, number>> = { domain: CONFIDENCE.domain };
  const set = <F extends Field>(field: F, value: CompanyFields[F] | undefined, score: number) => {
    if (value === undefined || fields[field] !== undefined) return;
    if (typeof value === 'string' && value.trim() === '') return;
    fields[field] = value;
    confidence[field] = score;
  };

  const { organizations } = readJsonLd(pages.flatMap((p) => p.jsonLd));
  const chosen = ownOrganization(organizations, domain);
  const org = chosen ? mergeOrganizations(chosen, organizations) : undefined;

  set('name', org?.name, CONFIDENCE.jsonLd);
  set('name', firstMeta(pages, 'og:site_name'), CONFIDENCE.ogSiteName);
  set('name', firstMeta(pages, 'application-name'), CONFIDENCE.applicationName);
  set('name', nameFromTitle(home.title), CONFIDENCE.title);

  set('description', org?.description, CONFIDENCE.jsonLd);
  set(
    'description',
    home.meta.description?.[0] ?? home.meta['og:description']?.[0],
    CONFIDENCE.metaDescription,
  );

  set('founded', org?.foundingYear, CONFIDENCE.jsonLd);
  set('employee_count', org?.employeeCount, CONFIDENCE.jsonLd);
  set('location', org?.location, CONFIDENCE.jsonLd);
  set('industry', org?.industry, CONFIDENCE.jsonLd);
  for (const page of pages) {
    for (const phrase of FOUNDED_PHRASES) {
      const match = phrase.exec(page.text);
      if (match) set('founded', Number(match[1]), CONFIDENCE.textYear);
    }
    const staff = EMPLOYEE_PHRASE.exec(page.text);
    if (staff) set('employee_count', Number(staff[1]!.replace(/[,.]/g, '')), CONFIDENCE.textEmployees);
  }
  if (fields.founded !== undefined && fields.founded > new Date().getUTCFullYear()) {
    delete fields.founded;
    delete confidence.founded;
  }

  const social = socialProfiles([...(org?.sameAs ?? []), ...pages.flatMap((p) => p.links.map((l) => l.url))]);
  if (Object.keys(social).length > 0) set('social', social, CONFIDENCE.social);

  set('logo', resolveUrl(org?.logo, home.url), CONFIDENCE.jsonLd);
  set('logo', home.logoImages[0], CONFIDENCE.logoImage);
  set('logo', home.icons[0], CONFIDENCE.icon);

  const signals: SiteSignals = {
    headers: crawl.headers,
    cookies: crawl.cookies,
    scripts: pages.flatMap((p) => p.scripts),
    urls: pages.flatMap((p) => p.urls),
    meta: home.meta,
    inline: pages.flatMap((p) => p.inline),
  };
  const technologies = detectTechnologies(signals).map((t) => t.name);
  if (technologies.length > 0) set('technologies', technologies, CONFIDENCE.technologies);

  // The domain alone is what we were asked; without anything else the site told us nothing.
  if (Object.keys(fields).length <= 1) return null;
  return {
    fields,
    // The candidate as a whole: a site describing itself in JSON-LD is as sure as it gets here.
    confidence: org ? CONFIDENCE.jsonLd : fields.name !== undefined ? 0.7 : 0.5,
    fieldConfidence: confidence,
  };
}

/**
 * The company candidate one HTML page supports (no fetching): for callers that already hold the
 * page, and for the extraction benchmark. `headers` (lower-cased names) and `cookies` feed the
 * fingerprints as a response's would.
 */
export function extractCompanyFromHtml(
  html: string,
  pageUrl: string,
  response: { headers?: Record<string, string>; cookies?: string[] } = {},
): Candidate<'company'> | null {
  const domain = new URL(pageUrl).hostname.toLowerCase().replace(/^www\./, '');
  return companyCandidate({
    domain,
    pages: [extractPage(html, pageUrl)],
    headers: response.headers ?? {},
    cookies: response.cookies ?? [],
  });
}
