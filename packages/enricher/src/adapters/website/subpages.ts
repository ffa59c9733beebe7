import type { PageFacts } from './extract.js';

/** Kinds of page worth reading besides the homepage, with words that name them in EN/DE/FR/ES paths and link texts. */
const KINDS: Array<{ kind: string; words: string[] }> = [
  {
    kind: 'about',
    words: [
      'about',
      'about-us',
      'company',
      'who-we-are',
      'ueber-uns',
      'uber-uns',
      'über-uns',
      'unternehmen',
      'a-propos',
      'qui-sommes-nous',
      'nosotros',
      'sobre-nosotros',
      'empresa',
      'über uns',
      'à propos',
      'quiénes somos',
      'unser-verein',
      'unserverein',
      'wir-ueber-uns',
      'wir-über-uns',
    ],
  },
  {
    kind: 'team',
    words: [
      'team',
      'our-team',
      'people',
      'leadership',
      'management',
      'founders',
      'equipe',
      'équipe',
      'equipo',
    ],
  },
  { kind: 'contact', words: ['contact', 'contact-us', 'kontakt', 'contacto', 'nous-contacter'] },
  { kind: 'imprint', words: ['imprint', 'impressum', 'legal-notice', 'mentions-legales', 'aviso-legal'] },
];

function normalise(text: string): string {
  return text.toLowerCase().replace(/[\s_]+/g, '-');
}

function lastSegment(url: URL): string {
  const segments = url.pathname.split('/').filter(Boolean);
  let last = segments.at(-1) ?? '';
  try {
    last = decodeURIComponent(last);
  } catch {
    // a malformed escape: compare the raw segment
  }
  return normalise(last.replace(/\.(html?|php|aspx?)$/, ''));
}

/**
 * The kind of page a URL is by its path alone: `home` for the site's root (or a language root
 * such as `/en/`, or `/index.html`), `about`/`team`/`contact`/`imprint` by its last segment, else `other`.
 */
export function pageKindOf(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'other';
  }
  if (
    /^\/(?:[a-z]{2}(?:[-_][a-z]{2})?\/)?(?:home|index\.[a-z]+|default\.aspx?|[a-z]{2}(?:[-_][a-z]{2})?)?\/?$/i.test(
      url.pathname,
    ) &&
    url.search === ''
  ) {
    return 'home';
  }
  const last = lastSegment(url);
  for (const { kind, words } of KINDS) if (words.some((w) => normalise(w) === last)) return kind;
  return 'other';
}

/**
 * The about/team/contact/imprint pages a homepage links to on its own host: one per kind, the
 * first link whose last path segment or text is one of the kind's words, at most `max` in all.
 */
export function pickSubpages(home: PageFacts, max: number): Array<{ url: string; kind: string }> {
  const host = new URL(home.url).host;
  const chosen: Array<{ url: string; kind: string }> = [];
  const seen = new Set<string>([home.url.replace(/#.*$/, '')]);
  for (const { kind, words } of KINDS) {
    if (chosen.length >= max) break;
    const wanted = new Set(words.map(normalise));
    for (const link of home.links) {
      let url: URL;
      try {
        url = new URL(link.url);
      } catch {
        continue;
      }
      if (url.host !== host || (url.protocol !== 'http:' && url.protocol !== 'https:')) continue;
      url.hash = '';
      const last = lastSegment(url);
      if (!wanted.has(last) && !wanted.has(normalise(link.text))) continue;
      if (seen.has(url.href)) continue;
      seen.add(url.href);
      chosen.push({ url: url.href, kind });
      break;
    }
  }
  return chosen;
}
