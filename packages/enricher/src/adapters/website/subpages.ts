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

/**
 * The about/team/contact/imprint pages a homepage links to on its own host: one per kind, the
 * first link whose last path segment or text is one of the kind's words, at most `max` in all.
 */
export function pickSubpages(home: PageFacts, max: number): string[] {
  const host = new URL(home.url).host;
  const chosen: string[] = [];
  const seen = new Set<string>([home.url.replace(/#.*$/, '')]);
  for (const { words } of KINDS) {
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
      const segments = url.pathname.split('/').filter(Boolean);
      const last = normalise(decodeURIComponent(segments.at(-1) ?? '').replace(/\.(html?|php|aspx?)$/, ''));
      if (!wanted.has(last) && !wanted.has(normalise(link.text))) continue;
      if (seen.has(url.href)) continue;
      seen.add(url.href);
      chosen.push(url.href);
      break;
    }
  }
  return chosen;
}
