/**
 * A reply's text as the classifier reads it: lines joined by one space, Unicode compatibility
 * forms folded (NFKC: full-width letters, ligatures, the no-break space U+00A0), typographic
 * apostrophes and quotes made ASCII (`doesn’t` → `doesn't`), every other space character and
 * run of white space made one ASCII space. Patterns are written against this form only, so a
 * provider's curly apostrophe or no-break space cannot defeat them.
 */
export function normaliseReplyText(lines: readonly string[]): string {
  return lines
    .join(' ')
    .normalize('NFKC')
    .replace(/[\u2018\u2019\u201A\u201B\u2032\u02BC\u0060\u00B4]/g, "'")
    .replace(/[\u201C\u201D\u201E\u201F\u2033\u00AB\u00BB]/g, '"')
    .replace(/[\u2010-\u2015\u2212]/g, '-')
    .replace(/[\s\u200B\u2060\uFEFF]+/gu, ' ')
    .trim();
}

// An address in a reply names the recipient or the sender; its letters say nothing ("a
// recipient-mailbox-is-full@…" local part is not a full mailbox), so matching sees a placeholder.
const ATOM = '[\\w!#$%&*+/=?^`{|}~-]+';
const ADDRESS = new RegExp(`${ATOM}(?:\\.${ATOM})*@[\\w-]+(?:\\.[\\w-]+)*`, 'g');

/** `normaliseReplyText` with every e-mail address replaced by `EMAIL_ADDRESS`: what the rules match. */
export function replyTextForMatching(lines: readonly string[]): string {
  return normaliseReplyText(lines).replace(ADDRESS, 'EMAIL_ADDRESS');
}
