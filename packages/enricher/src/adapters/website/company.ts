import { getDomain } from 'tldts';
import type { Candidate, CompanyFields } from '../../adapter.js';
import { agreesWithDomain, chooseName, domainLabel, namesAgree } from './company-name.js';
import { extractPage, type PageFacts } from './extract.js';
import { detectTechnologies, type SiteSignals } from './fingerprint.js';
import { readJsonLd } from './jsonld.js';
import { siteLanguage } from './language.js';
import { mergeOrganizations, ownOrganization, registrableDomainOf } from './organization.js';
import { socialProfiles } from './social.js';
import { pageKindOf } from './subpages.js';
import { employeesFromText, foundedFromText } from './text-facts.js';

/** What a site gave: its pages (the homepage first) and the homepage's response headers and cookies. */
export interface SiteCrawl {
  domain: string;
  pages: PageFacts[];
  headers: Record<string, string>;
  cookies: string[];
}

type Field = keyof CompanyFields;

// How sure each source is of what it states. A site's own structured data is deliberate
// self-description; meta tags are usually right but often the page's, not the company's; the
// <title> and statements in running text are guesses (company-name.ts and text-facts.ts say when
// they are read at all).
const CONFIDENCE = {
  structured: 0.9,
  metaDescription: 0.75,
  textYear: 0.6,
  textEmployees: 0.55,
  social: 0.85,
  logoImage: 0.7,
  icon: 0.5,
  technologies: 0.8,
  domain: 1,
} as const;

function firstMeta(pages: PageFacts[], key: string): string | undefined {
  for (const page of pages) {
    const value = page.meta[key]?.find((v) => v !== '');
    if (value) return value;
  }
  return undefined;
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
  const evidence: Partial<Record<Field, string>> = {};
  const set = <F extends Field>(
    field: F,
    value: CompanyFields[F] | undefined,
    score: number,
    via: string,
  ) => {
    if (value === undefined || fields[field] !== undefined) return;
    if (typeof value === 'string' && value.trim() === '') return;
    fields[field] = value;
    confidence[field] = score;
    evidence[field] = via;
  };
  const kindOf = (page: PageFacts) => page.kind ?? pageKindOf(page.url);

  // Only the queried company's own Organization counts (organization.ts); others are ignored.
  const { organizations } = readJsonLd(
    pages.flatMap((p) => p.jsonLd),
    pages.flatMap((p) => p.microdata),
  );
  const siteSignals = [
    firstMeta(pages, 'og:site_name'),
    firstMeta(pages, 'application-name'),
    ...home.logoAlts,
  ].filter((n): n is string => n !== undefined);
  const own = ownOrganization(
    organizations,
    domain,
    home.url,
    (name) =>
      siteSignals.some((signal) => namesAgree(name, signal)) || agreesWithDomain(name, domainLabel(domain)),
  );
  const org = own ? mergeOrganizations(own.org, organizations) : undefined;
  const structured = `schema.org Organization (${own?.tie ?? ''})`;

  const name = chooseName({
    organization: org?.name,
    siteName: firstMeta(pages, 'og:site_name'),
    applicationName: firstMeta(pages, 'application-name'),
    logoAlts: home.logoAlts,
    domain,
    title: home.title,
    homepage: kindOf(home) === 'home',
  });
  if (name) set('name', name.name, name.confidence, name.via === 'organization' ? structured : name.via);

  set('description', org?.description, CONFIDENCE.structured, structured);
  const metaDescription = home.meta.description?.[0];
  set(
    'description',
    metaDescription ?? home.meta['og:description']?.[0],
    CONFIDENCE.metaDescription,
    metaDescription !== undefined ? 'meta description' : 'og:description',
  );

  set('founded', org?.foundingYear, CONFIDENCE.structured, structured);
  set('employee_count', org?.employeeCount, CONFIDENCE.structured, structured);
  set('location', org?.location, CONFIDENCE.structured, structured);
  set('industry', org?.industry, CONFIDENCE.structured, structured);
  // Running text only on the company's own about page, and only statements about itself.
  const names = [fields.name, org?.name, domain.split('.')[0]].filter((n): n is string => n !== undefined);
  for (const page of pages.filter((p) => kindOf(p) === 'about')) {
    set('founded', foundedFromText(page.text, names), CONFIDENCE.textYear, `about page text (${page.url})`);
    set(
      'employee_count',
      employeesFromText(page.text, names),
      CONFIDENCE.textEmployees,
      `about page text (${page.url})`,
    );
  }
  if (fields.founded !== undefined && fields.founded > new Date().getUTCFullYear()) {
    delete fields.founded;
    delete confidence.founded;
    delete evidence.founded;
  }

  // Profiles the company declares, then links on its pages that are not inside content or a third-party widget.
  // A network's own pages link to the profiles it hosts (xing.com to xing.com/pages/…): not its own.
  const elsewhere = (url: string) => registrableDomainOf(url, home.url) !== domain;
  // The site's frame (header, footer, navigation, a social block) speaks for the company; a link
  // anywhere else (a guest's profile in show notes, a reviewer's) counts only if its handle agrees.
  const links = pages.flatMap((p) => p.links.filter((l) => !l.inContent));
  const social = socialProfiles(
    [...(org?.sameAs ?? []), ...links.filter((l) => l.inChrome).map((l) => l.url)].filter(elsewhere),
    names,
    links
      .filter((l) => !l.inChrome)
      .map((l) => l.url)
      .filter(elsewhere),
  );
  if (Object.keys(social).length > 0) set('social', social, CONFIDENCE.social, 'sameAs and page links');

  set('logo', resolveUrl(org?.logo, home.url), CONFIDENCE.structured, structured);
  set('logo', home.logoImages[0], CONFIDENCE.logoImage, 'logo image');
  set('logo', home.icons[0], CONFIDENCE.icon, 'icon');

  const language = siteLanguage(home.lang, home.text);
  if (language) set('language', language.language, language.confidence, `language (${language.via})`);

  const signals: SiteSignals = {
    headers: crawl.headers,
    cookies: crawl.cookies,
    scripts: pages.flatMap((p) => p.scripts),
    urls: pages.flatMap((p) => p.urls),
    meta: home.meta,
    inline: pages.flatMap((p) => p.inline),
  };
  const technologies = detectTechnologies(signals, domain).map((t) => t.name);
  if (technologies.length > 0) set('technologies', technologies, CONFIDENCE.technologies, 'fingerprints');

  // The domain (what we were asked) and the language alone say nothing about the company.
  if (Object.keys(fields).filter((f) => f !== 'domain' && f !== 'language').length === 0) return null;
  return {
    fields,
    // The candidate as a whole: a site describing itself in structured data is as sure as it gets here.
    confidence: org ? CONFIDENCE.structured : (confidence.name ?? 0) >= 0.5 ? 0.7 : 0.5,
    fieldConfidence: confidence,
    fieldEvidence: evidence,
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
  const hostname = new URL(pageUrl).hostname.toLowerCase();
  const domain = getDomain(hostname) ?? hostname.replace(/^www\./, '');
  return companyCandidate({
    domain,
    pages: [extractPage(html, pageUrl)],
    headers: response.headers ?? {},
    cookies: response.cookies ?? [],
  });
}
