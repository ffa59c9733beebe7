import { ASCII_FLAGS, ATEXT } from './char-classes.js';
import { type SyntaxFailure, showChar } from './problems.js';

/** RFC 5321 §4.5.3.1.1 */
export const MAX_LOCAL_OCTETS = 64;

const UTF8_NOT_ALLOWED: SyntaxFailure = {
  problem: 'local_utf8_not_allowed',
  detail:
    'The local part contains non-ASCII characters (RFC 6531 internationalised address); enable allowUtf8LocalPart to accept it',
};

/**
 * Checks a local part against RFC 5321: a dot-atom (`atext` runs separated by single dots) or a
 * quoted string covering the whole local part. With `allowUtf8` non-ASCII characters count as
 * `atext`/`qtext` (RFC 6531 §3.3). Control characters were rejected before this runs.
 * Returns null when valid.
 */
export function checkLocalPart(local: string, allowUtf8: boolean): SyntaxFailure | null {
  return PLAIN_DOT_ATOM.test(local) ? null : scanLocalPart(local, allowUtf8);
}

// Accepts the common case, an ASCII dot-atom, in native code; linear, since `.` is not atext.
const PLAIN_DOT_ATOM = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;

/** checkLocalPart without the regex fast path: the scanner that explains every failure. */
export function scanLocalPart(local: string, allowUtf8: boolean): SyntaxFailure | null {
  return local.charCodeAt(0) === 0x22 ? checkQuoted(local, allowUtf8) : checkDotAtom(local, allowUtf8);
}

function checkDotAtom(local: string, allowUtf8: boolean): SyntaxFailure | null {
  const n = local.length;
  let afterDot = true;
  for (let i = 0; i < n; i++) {
    const c = local.charCodeAt(i);
    if (c === 0x2e) {
      if (i === 0) return { problem: 'local_leading_dot', detail: 'The local part starts with a dot' };
      if (afterDot)
        return { problem: 'local_consecutive_dots', detail: 'The local part has two consecutive dots' };
      afterDot = true;
      continue;
    }
    afterDot = false;
    if (c < 128) {
      if (((ASCII_FLAGS[c] as number) & ATEXT) === 0) return invalidAtomCharacter(local, i);
    } else if (!allowUtf8) {
      return UTF8_NOT_ALLOWED;
    }
  }
  if (afterDot) return { problem: 'local_trailing_dot', detail: 'The local part ends with a dot' };
  return null;
}

function invalidAtomCharacter(local: string, index: number): SyntaxFailure {
  const ch = local[index] as string;
  switch (ch) {
    case '(':
    case ')':
      return {
        problem: 'comment',
        detail: 'Comments in parentheses are not allowed in an envelope address (RFC 5321)',
      };
    case '"':
      return {
        problem: 'local_partially_quoted',
        detail:
          'Only the whole local part may be quoted; mixing quoted and unquoted parts (like "a".b) is an obsolete RFC 5322 form',
      };
    case ' ':
      return {
        problem: 'local_invalid_character',
        detail: 'The local part contains a space; a space is only allowed inside a quoted local part',
      };
    case '@':
      return {
        problem: 'local_invalid_character',
        detail: 'The address has more than one "@"; only a quoted local part may contain "@"',
      };
    default:
      return {
        problem: 'local_invalid_character',
        detail: `The local part contains ${showChar(ch)} at position ${index + 1}, which is only allowed inside a quoted local part`,
      };
  }
}

// RFC 5321 Quoted-string: DQUOTE *(qtextSMTP / quoted-pairSMTP) DQUOTE, where qtextSMTP is any
// printable ASCII but `"` and `\`, and quoted-pairSMTP is `\` followed by printable ASCII.
function checkQuoted(local: string, allowUtf8: boolean): SyntaxFailure | null {
  const n = local.length;
  let i = 1;
  while (i < n) {
    const c = local.charCodeAt(i);
    if (c === 0x22) break;
    if (c === 0x5c) {
      if (i + 2 >= n) break; // the backslash escapes the last character: nothing closes the quote
      const next = local.charCodeAt(i + 1);
      if (next < 0x20 || next > 0x7e) {
        return {
          problem: 'local_invalid_quoted_pair',
          detail: 'A backslash in a quoted local part must be followed by a printable ASCII character',
        };
      }
      i += 2;
      continue;
    }
    if (c >= 128 && !allowUtf8) return UTF8_NOT_ALLOWED;
    i++;
  }
  if (i >= n || local.charCodeAt(i) !== 0x22) {
    return { problem: 'local_unterminated_quote', detail: 'The quoted local part has no closing quote' };
  }
  if (i !== n - 1) {
    return {
      problem: 'local_partially_quoted',
      detail:
        'Only the whole local part may be quoted; text after the closing quote (like "a"."b") is an obsolete RFC 5322 form',
    };
  }
  if (n === 2) {
    return {
      problem: 'local_empty_quoted',
      detail: 'The quoted local part is empty; no mailbox can be addressed as ""',
    };
  }
  return null;
}
