import { compact } from './company-name.js';

/**
 * Founding year and head count stated in running text. Only the company's own about page is read
 * (elsewhere the numbers are almost always someone else's: "the first quarterly loss since 2011",
 * another firm's staff in a news item), and only a sentence whose subject is the company: its
 * name, or the site speaking as "we". A year or count in a clause about someone else
 * ("we acquired Beta, which was founded in 1990") is not taken.
 */

const YEAR = '((?:1[6-9]|20)\\d{2})';

/** Phrases stating a founding, by language; the year is group 1. */
const FOUNDED = [
  new RegExp(`\\b(?:was |were |been )?(?:founded|established|incorporated)(?: in| back in)? ${YEAR}\\b`, 'i'),
  new RegExp(`\\b(?:wurden?|ist|sind) (?:im jahre? |anno )?${YEAR}(?: in \\S+)? gegründet\\b`, 'i'),
  new RegExp(`\\bgegründet(?: im jahre?| im| in)? ${YEAR}\\b`, 'i'),
  new RegExp(`\\b(?:fondée?s?|créée?s?) en ${YEAR}\\b`, 'i'),
  new RegExp(`\\b(?:fundad[ao]s?|cread[ao]s?) en ${YEAR}\\b`, 'i'),
];

/** Counts stated as staff: "320 employees", "über 1.200 Mitarbeiter", "40 salariés"; the number is group 1. */
const EMPLOYEES =
  /\b(\d{1,3}(?:[,.]\d{3})+|\d{1,6})\s*\+?\s*(?:full-time )?(?:employees|staff members|team members|mitarbeiter(?:innen|\*innen)?|mitarbeitende[n]?|beschäftigte[n]?|salariés|collaborateurs|employés|empleados|trabajadores)\b/i;

/** The site speaking of itself, in EN, DE, FR, ES. */
const FIRST_PERSON =
  /\b(?:we|we've|we're|our (?:company|firm|business|team|agency|studio)|wir|unser(?:e|em)? (?:unternehmen|firma|team)|nous|notre (?:société|entreprise|équipe)|nosotros|nuestra (?:empresa|compañía))\b/i;

/** Words that start a clause about someone else between the subject and the statement. */
const OTHER_SUBJECT =
  /\b(?:which|that|who|whose|he|she|they|his|her|their|acquired|acquisition|bought|merged|partner|partners|client|clients|customer|customers|welche[rs]?|der|die|dessen|qui|dont|que|cuyo)\b/i;

/** Most words between the subject and the statement. */
const WINDOW_WORDS = 8;

function sentences(text: string): string[] {
  return text.split(/(?<=[.!?])\s+(?=[\p{Lu}\d"“])/u);
}

function subjectPattern(names: readonly string[]): RegExp | null {
  const usable = names
    .map((n) => n.trim())
    .filter((n) => compact(n).length >= 2)
    .map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+'));
  return usable.length > 0
    ? new RegExp(`(?:^|[^\\p{L}\\p{N}])(?:${usable.join('|')})(?=$|[^\\p{L}\\p{N}])`, 'iu')
    : null;
}

/** Whether the statement at `index` in `sentence` has the company as its subject. */
function aboutTheCompany(sentence: string, index: number, length: number, subject: RegExp | null): boolean {
  const isSubject = (text: string) => FIRST_PERSON.test(text) || (subject?.test(text) ?? false);
  const before = sentence.slice(0, index).trim();
  const words = before.split(/\s+/).filter(Boolean);
  // "Acme was founded in 1952", "We have 40 employees", "Wir sind seit … 1998 gegründet".
  const near = words.slice(-WINDOW_WORDS).join(' ');
  if (before !== '' && isSubject(near)) {
    // The subject must be the last one named before the statement: nothing starting another clause after it.
    const lastSubject = Math.max(lastIndexOf(near, FIRST_PERSON), subject ? lastIndexOf(near, subject) : -1);
    return !OTHER_SUBJECT.test(near.slice(lastSubject));
  }
  // "Founded in 1952, Acme …", "With 40 employees, we …": the statement opens the sentence.
  if (words.length <= 2) {
    const after = sentence
      .slice(index + length)
      .split(/\s+/)
      .filter(Boolean)
      .slice(0, 4)
      .join(' ');
    return isSubject(after);
  }
  return false;
}

function lastIndexOf(text: string, pattern: RegExp): number {
  const global = new RegExp(pattern.source, `${pattern.flags.replace('g', '')}g`);
  let last = -1;
  for (const match of text.matchAll(global)) last = match.index ?? last;
  return last;
}

/** A founding year stated by the company about itself in `text`, or undefined. */
export function foundedFromText(
  text: string,
  names: readonly string[],
  now = new Date(),
): number | undefined {
  const subject = subjectPattern(names);
  for (const sentence of sentences(text)) {
    for (const phrase of FOUNDED) {
      const match = phrase.exec(sentence);
      if (!match || !aboutTheCompany(sentence, match.index, match[0].length, subject)) continue;
      const year = Number(match[1]);
      if (year <= now.getUTCFullYear()) return year;
    }
  }
  return undefined;
}

/** A head count stated by the company about itself in `text`, or undefined. */
export function employeesFromText(text: string, names: readonly string[]): number | undefined {
  const subject = subjectPattern(names);
  for (const sentence of sentences(text)) {
    const match = EMPLOYEES.exec(sentence);
    if (!match || !aboutTheCompany(sentence, match.index, match[0].length, subject)) continue;
    const count = Number(match[1]!.replace(/[,.]/g, ''));
    if (count > 0) return count;
  }
  return undefined;
}
