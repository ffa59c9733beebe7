/** Longest title we look at: job titles are short, and a cap keeps the rules' cost bounded. */
export const MAX_TITLE_LENGTH = 200;

/**
 * Folds a job title into the form the rules match: lower case, accents removed (so "Geschäftsführer",
 * "Geschaftsfuhrer" and "Directeur général" match ASCII patterns), dotted acronyms joined ("V.P." →
 * "vp", "C.E.O." → "ceo"), every other run of punctuation a single space, padded with one space on
 * each side. Hyphens become spaces, so "Co-Founder" and "vice-président" read as two words.
 */
export function normaliseTitle(title: string): string {
  let s = title.slice(0, MAX_TITLE_LENGTH).toLowerCase();
  // Most titles are plain ASCII: the Unicode steps (several times slower) run only when needed.
  const ascii = /^[\x20-\x7e]*$/.test(s);
  if (!ascii) {
    s = s.normalize('NFKD').replace(/\p{M}+/gu, '');
    // Letters NFKD keeps whole; the German ones also have the "ae/oe/ue/ss" spellings the rules accept.
    s = s.replace(/ß/g, 'ss').replace(/æ/g, 'ae').replace(/œ/g, 'oe');
  }
  // "V.P." / "C.E.O." / "S.V.P" → one token; other dots ("Sr.", "Dipl.-Ing.") separate words.
  if (s.includes('.'))
    s = s.replace(/\b(?:\p{L}\.){2,}(?:\p{L}\b)?/gu, (acronym) => acronym.replace(/\./g, ''));
  s = s.replace(/&|\+/g, ' and ');
  s = ascii ? s.replace(/[^a-z0-9]+/g, ' ') : s.replace(/[^\p{L}\p{N}]+/gu, ' ');
  return ` ${s.trim()} `;
}
