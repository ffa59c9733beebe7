/**
 * The company's name from what a site says about itself. Declared names come first (the site's
 * own schema.org Organization, `og:site_name`, `application-name`). The `<title>` is a last resort
 * and only on the homepage: elsewhere it names the page (an article's headline), not the company.
 * Even there it stays below the default threshold unless one of its parts agrees with another
 * signal (a declared name, the logo's alt text, the domain's label), and the agreeing part is the
 * brand, whichever side of the separator it is on ("Home | Acme", "Acme – Widgets for all").
 */

export interface NameSignals {
  /** The name of the site's own Organization (JSON-LD or microdata), if any. */
  organization?: string | undefined;
  siteName?: string | undefined;
  applicationName?: string | undefined;
  /** Alt texts of the logo images. */
  logoAlts: readonly string[];
  /** The registrable domain (`acme-widgets.co.uk`). */
  domain: string;
  title: string;
  /** Whether the page is the site's homepage (the title is read only there). */
  homepage: boolean;
}

export interface NameFinding {
  name: string;
  confidence: number;
  /** Which signal gave it (kept as the field's evidence). */
  via: string;
}

/** Confidence of each way of finding a name (the enricher's default threshold is 0.5). */
export const NAME_CONFIDENCE = {
  organization: 0.9,
  siteName: 0.8,
  applicationName: 0.7,
  /** A part of the homepage's title that agrees with another signal. */
  titleAgreeing: 0.75,
  /** The homepage's title alone: below the default threshold, so only a lower one lets it through. */
  titleAlone: 0.4,
} as const;

/** Separators between a title's parts: pipes, dashes, colons, bullets, guillemets, with spaces around. */
const SEPARATOR = /\s+[|\-–—:·•»«~/]\s+|\s*[|–—·•»«]\s*|:\s+/;

/** Title parts that are never a brand. */
const GENERIC = new Set([
  'home',
  'homepage',
  'home page',
  'welcome',
  'official site',
  'official website',
  'startseite',
  'accueil',
  'inicio',
  'pagina inicial',
  'página inicial',
  'start',
  'index',
]);

/** Declared site names that name a section of a site, not the company ("Support", "Blog"). */
const GENERIC_SITE_NAMES = new Set([
  'blog',
  'support',
  'help',
  'help center',
  'news',
  'docs',
  'documentation',
  'shop',
  'store',
  'home',
  'homepage',
  'community',
  'forum',
  'careers',
  'jobs',
]);

// Words a legal name carries that the domain and the brand usually leave out.
const LEGAL_SUFFIX =
  /\b(?:inc|incorporated|corp|corporation|co|company|llc|llp|ltd|limited|plc|gmbh|ag|kg|se|sa|sas|sarl|srl|spa|bv|nv|ab|as|oy|pty|group|holdings?)\b\.?/g;

/** Letters and digits only, lower case, accents removed. */
export function compact(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
}

function withoutLegalSuffix(text: string): string {
  return compact(
    text
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(LEGAL_SUFFIX, ' '),
  );
}

function initials(text: string): string {
  return text
    .split(/[\s&+-]+/)
    .filter((w) => /^[A-Za-z]/.test(w))
    .map((w) => w[0]!.toLowerCase())
    .join('');
}

/** The label of a registrable domain (`acme-widgets.co.uk` → `acmewidgets`). */
export function domainLabel(domain: string): string {
  return compact(domain.split('.')[0] ?? '');
}

/** Whether a title part and another name for the company say the same thing. */
export function namesAgree(part: string, other: string): boolean {
  const a = compact(part);
  const b = compact(other);
  if (a.length < 2 || b.length < 2) return false;
  if (a === b) return true;
  const a2 = withoutLegalSuffix(part);
  const b2 = withoutLegalSuffix(other);
  return (a2.length >= 2 && a2 === b2) || (a2.length >= 2 && a2 === b) || (b2.length >= 2 && a === b2);
}

/** Whether a title part is the brand a domain's label spells ("Acme Widgets" ↔ acme-widgets.com, "IBM" ↔ "International Business Machines"). */
export function agreesWithDomain(part: string, label: string): boolean {
  if (label.length < 2) return false;
  const a = compact(part);
  const a2 = withoutLegalSuffix(part);
  if (a === label || a2 === label) return true;
  // A label that adds a short generic word to the brand (acmehq, getacme, acmeapp). A part that
  // adds words to the label ("Netflix Germany", "Example Domain") only partly agrees: not enough.
  if (a2.length >= 4 && (label.startsWith(a2) || label.endsWith(a2)) && label.length - a2.length <= 4)
    return true;
  return initials(part).length >= 2 && initials(part) === label;
}

/** A title's parts: the text between its separators, trimmed, non-empty. */
export function titleParts(title: string): string[] {
  return title
    .split(SEPARATOR)
    .map((p) => p.trim())
    .filter((p) => p !== '');
}

function stripLogoWord(alt: string): string {
  return alt.replace(/\b(?:logo(?:type)?|home|homepage|startseite)\b/gi, ' ').trim();
}

/** The company's name from a page's signals, with its confidence and origin, or undefined. */
export function chooseName(signals: NameSignals): NameFinding | undefined {
  const declared: Array<[string | undefined, number, string]> = [
    [signals.organization, NAME_CONFIDENCE.organization, 'organization'],
    [signals.siteName, NAME_CONFIDENCE.siteName, 'og:site_name'],
    [signals.applicationName, NAME_CONFIDENCE.applicationName, 'application-name'],
  ];
  const label = domainLabel(signals.domain);
  const alts = signals.logoAlts.map(stripLogoWord).filter((a) => a !== '');
  const agrees = (part: string) => alts.some((alt) => namesAgree(part, alt)) || agreesWithDomain(part, label);
  for (const [declaredName, confidence, via] of declared) {
    // "Radiolab Podcasts | WNYC Studios": a declared name made of parts is the part that agrees, if one does.
    const parts = declaredName === undefined ? [] : titleParts(declaredName);
    const clean = (parts.length > 1 ? (parts.find(agrees) ?? declaredName) : declaredName)?.trim();
    // A section's name ("Support", "Blog") or the site's address ("https://www.acme.com") is no company name.
    if (!clean || clean.length > 120 || GENERIC_SITE_NAMES.has(clean.toLowerCase())) continue;
    if (/^(?:https?:)?\/\//i.test(clean)) continue;
    return { name: clean, confidence, via };
  }
  if (!signals.homepage) return undefined;
  const parts = titleParts(signals.title).filter(
    (p) => p.length <= 80 && !GENERIC.has(p.toLowerCase()) && /\p{L}/u.test(p),
  );
  if (parts.length === 0) return undefined;
  for (const part of parts) {
    if (alts.some((alt) => namesAgree(part, alt)))
      return { name: part, confidence: NAME_CONFIDENCE.titleAgreeing, via: 'title+logo alt' };
    if (agreesWithDomain(part, label))
      return { name: part, confidence: NAME_CONFIDENCE.titleAgreeing, via: 'title+domain' };
  }
  // No agreement: a guess, kept below the threshold. A homepage's title usually starts with the brand.
  return { name: parts[0]!, confidence: NAME_CONFIDENCE.titleAlone, via: 'title' };
}
