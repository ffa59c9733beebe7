import { detectAll, supportedLanguages, toISO2 } from 'tinyld';

/**
 * The language a site is written in, as a BCP 47 primary language subtag (`en`, `de`, `pt`): the
 * document's declared language, checked against its text. A template's stale `lang="en"` on a
 * German page is common, so the text may overrule it; with too little text to tell, the
 * declaration stands alone, with less confidence.
 */

/** Least visible text (characters) worth asking the detector about. */
const MIN_TEXT = 200;
/** Most text handed to the detector: enough to get past navigation and cookie banners. */
const MAX_TEXT = 20_000;
/** Languages the detector may answer: tinyld's, less those no company site is written in (Latin, Esperanto, Klingon, …). */
const CANDIDATES = supportedLanguages
  .filter((code) => !['ber', 'lat', 'epo', 'vol', 'tlh', 'run'].includes(code))
  .map((code) => toISO2(code));
/** How sure the detector must be of another language before it overrules the declaration. */
const OVERRULE = 0.6;
/** How sure the detector must be when the page declares nothing. */
const UNDECLARED = 0.8;
/** How much weight the detector must give the declared language to confirm it (mixed pages). */
const SUPPORT = 0.1;

export interface LanguageFinding {
  language: string;
  confidence: number;
  /** How it was found: declared and confirmed by the text, declared only, or from the text. */
  via: 'declared+text' | 'declared' | 'text';
}

/** The primary subtag of a language tag (`en-US` → `en`, `zh_Hant` → `zh`), or null for none/invalid/special. */
export function primaryLanguage(tag: string): string | null {
  const primary = tag.trim().split(/[-_]/)[0]!.toLowerCase();
  // 2–3 letters; `und` (undetermined), `mul`, `zxx`, `mis` and the private `qaa`–`qtz` range say nothing.
  if (!/^[a-z]{2,3}$/.test(primary)) return null;
  if (['und', 'mul', 'zxx', 'mis'].includes(primary) || /^q[a-t][a-z]$/.test(primary)) return null;
  return primary;
}

// ISO 639 codes a page may declare for the same language the detector names otherwise.
const SAME_LANGUAGE: Record<string, string> = { nb: 'no', nn: 'no', iw: 'he', in: 'id', ji: 'yi' };

function same(a: string, b: string): boolean {
  return (SAME_LANGUAGE[a] ?? a) === (SAME_LANGUAGE[b] ?? b);
}

/** The site's language from its declaration (`<html lang>` …) and visible text, or null. */
export function siteLanguage(declared: string, text: string): LanguageFinding | null {
  const tag = primaryLanguage(declared);
  const sample = text.slice(0, MAX_TEXT);
  const guesses = sample.length >= MIN_TEXT ? detectAll(sample, { only: CANDIDATES }) : [];
  const best = guesses[0];
  if (tag !== null) {
    if (!best) return { language: tag, confidence: 0.7, via: 'declared' };
    const support = guesses.find((g) => same(g.lang, tag))?.accuracy ?? 0;
    if (same(best.lang, tag) || support >= SUPPORT) {
      return { language: tag, confidence: 0.95, via: 'declared+text' };
    }
    // The text is clearly in another language: the declaration is a template's leftover.
    if (best.accuracy >= OVERRULE) return { language: best.lang, confidence: 0.6, via: 'text' };
    return { language: tag, confidence: 0.55, via: 'declared' };
  }
  // Undeclared: the text alone, when the detector is sure.
  if (best && best.accuracy >= UNDECLARED) return { language: best.lang, confidence: 0.6, via: 'text' };
  return null;
}
