import data from './fingerprints.json' with { type: 'json' };

/** What a site shows about the software it runs, gathered from one or more pages. */
export interface SiteSignals {
  /** Response headers, names lower-cased (several values of one header joined with `, `). */
  headers: Record<string, string>;
  /** Names of the cookies the site set. */
  cookies: string[];
  /** `<script src>` URLs. */
  scripts: string[];
  /** Other resource URLs: link href, img/iframe/source src, form action. */
  urls: string[];
  /** `<meta name|property>` (lower-cased) → contents. */
  meta: Record<string, string[]>;
  /** Inline `<script>` texts. */
  inline: string[];
}

/** One technology as written in `fingerprints.json`. */
export interface Fingerprint {
  name: string;
  category: string;
  headers?: Record<string, string>;
  cookies?: string[];
  scripts?: string[];
  urls?: string[];
  meta?: Record<string, string>;
  inline?: string[];
  /** Registrable domains of the vendor's own sites: the technology is not reported there (its pages load their own product). */
  vendor?: string[];
}

interface Compiled {
  name: string;
  category: string;
  vendor: Set<string>;
  headers: Array<[string, RegExp]>;
  cookies: RegExp[];
  scripts: RegExp[];
  urls: RegExp[];
  meta: Array<[string, RegExp]>;
  inline: RegExp[];
}

/** A detected technology. */
export interface DetectedTechnology {
  name: string;
  category: string;
}

function compile(fp: Fingerprint): Compiled {
  // A broken pattern in the data file must fail loudly at load, naming the entry, not silently never match.
  const re = (source: string, where: string): RegExp => {
    try {
      return new RegExp(source, 'i');
    } catch (cause) {
      throw new TypeError(`fingerprint "${fp.name}": invalid ${where} pattern ${JSON.stringify(source)}`, {
        cause,
      });
    }
  };
  if (typeof fp.name !== 'string' || fp.name === '' || typeof fp.category !== 'string') {
    throw new TypeError(
      `fingerprint ${JSON.stringify(fp.name)}: name and category must be non-empty strings`,
    );
  }
  return {
    name: fp.name,
    category: fp.category,
    vendor: new Set((fp.vendor ?? []).map((d) => d.toLowerCase())),
    headers: Object.entries(fp.headers ?? {}).map(([k, v]) => [k.toLowerCase(), re(v, `header ${k}`)]),
    cookies: (fp.cookies ?? []).map((p) => re(p, 'cookie')),
    scripts: (fp.scripts ?? []).map((p) => re(p, 'script')),
    urls: (fp.urls ?? []).map((p) => re(p, 'url')),
    meta: Object.entries(fp.meta ?? {}).map(([k, v]) => [k.toLowerCase(), re(v, `meta ${k}`)]),
    inline: (fp.inline ?? []).map((p) => re(p, 'inline')),
  };
}

/** Builds a matcher over a fingerprint set (the site's registrable domain optional); throws a `TypeError` naming a malformed entry. */
export function createFingerprintMatcher(
  fingerprints: readonly Fingerprint[],
): (signals: SiteSignals, domain?: string) => DetectedTechnology[] {
  const compiled = fingerprints.map(compile);
  return (signals, domain) => {
    const found: DetectedTechnology[] = [];
    const metaEntries = signals.meta;
    for (const fp of compiled) {
      if (domain !== undefined && fp.vendor.has(domain.toLowerCase())) continue;
      const hit =
        fp.headers.some(([name, re]) => {
          const value = signals.headers[name];
          return value !== undefined && re.test(value);
        }) ||
        fp.cookies.some((re) => signals.cookies.some((c) => re.test(c))) ||
        fp.scripts.some((re) => signals.scripts.some((s) => re.test(s))) ||
        fp.urls.some((re) => signals.urls.some((u) => re.test(u))) ||
        fp.meta.some(([name, re]) => (metaEntries[name] ?? []).some((v) => re.test(v))) ||
        // Inline scripts can be long; the patterns are plain literals, so this stays linear.
        fp.inline.some((re) => signals.inline.some((text) => re.test(text)));
      if (hit) found.push({ name: fp.name, category: fp.category });
    }
    return found;
  };
}

/** The fingerprint set shipped with the package (`fingerprints.json`, about 150 technologies). */
export const builtInFingerprints: readonly Fingerprint[] = data.technologies as Fingerprint[];

let builtInMatcher: ((signals: SiteSignals, domain?: string) => DetectedTechnology[]) | undefined;

/**
 * Matches `signals` against the built-in fingerprint set (compiled once, on first use). With the
 * site's registrable `domain`, a technology whose vendor that domain is is not reported.
 */
export function detectTechnologies(signals: SiteSignals, domain?: string): DetectedTechnology[] {
  builtInMatcher ??= createFingerprintMatcher(builtInFingerprints);
  return builtInMatcher(signals, domain);
}
