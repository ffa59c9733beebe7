import { codePointName } from './char-classes.js';
import type { SyntaxFailure } from './problems.js';

// Characters that make an address look like something it is not. A UTF-8 local part is compared
// byte for byte by the receiving server, so two addresses that display alike must be alike:
// invisible characters, direction overrides, look-alike spaces and a look-alike "@" are refused.
// `\p{Z}` also matches the ASCII space, which a quoted local part may hold: the scan skips it.
const SUSPECT_IN_LOCAL = /[\p{Z}\p{Default_Ignorable_Code_Point}\p{Noncharacter_Code_Point}\uFE6B\uFF20]/gu;
const BIDI_CONTROL = /\p{Bidi_Control}/u;
const NONCHARACTER = /\p{Noncharacter_Code_Point}/u;
const SEPARATOR = /\p{Z}/u;

/**
 * The code points UTS #46 (IDNA mapping) maps to nothing: its `ignored` entries. `domainToASCII`
 * drops them without a trace (`exa\u200Bmple.com` becomes `example.com`); a test checks this list
 * against every code point Node's IDNA deletes, so a Node upgrade that changes it is noticed.
 */
export const IDNA_IGNORED =
  // biome-ignore lint/suspicious/noMisleadingCharacterClass: each listed code point is matched on its own (u flag); the marks among them are meant to be found, not combined
  /[\u00AD\u034F\u180B-\u180D\u180F\u200B\u2060\u2064\uFE00-\uFE0F\uFEFF\u{1BCA0}-\u{1BCA3}\u{E0100}-\u{E01EF}]/u;
const IDNA_IGNORED_ALL = new RegExp(IDNA_IGNORED.source, 'gu');

// Names for the characters people actually paste; others are shown by code point only.
const NAMES: Readonly<Record<number, string>> = {
  160: 'no-break space',
  173: 'soft hyphen',
  847: 'combining grapheme joiner',
  1564: 'Arabic letter mark',
  5760: 'Ogham space mark',
  6158: 'Mongolian vowel separator',
  8203: 'zero width space',
  8204: 'zero width non-joiner',
  8205: 'zero width joiner',
  8206: 'left-to-right mark',
  8207: 'right-to-left mark',
  8232: 'line separator',
  8233: 'paragraph separator',
  8234: 'left-to-right embedding',
  8235: 'right-to-left embedding',
  8236: 'pop directional formatting',
  8237: 'left-to-right override',
  8238: 'right-to-left override',
  8239: 'narrow no-break space',
  8287: 'medium mathematical space',
  8288: 'word joiner',
  8294: 'left-to-right isolate',
  8295: 'right-to-left isolate',
  8296: 'first strong isolate',
  8297: 'pop directional isolate',
  12288: 'ideographic space',
  12644: 'Hangul filler',
  65039: 'variation selector-16',
  65131: 'small commercial at',
  65279: 'zero width no-break space, BOM',
  65312: 'full-width commercial at',
};

/** `U+200B (zero width space)`, or just `U+1BCA0` for a character without a name here. */
export function describeCodePoint(code: number): string {
  const name = NAMES[code];
  return name === undefined ? codePointName(code) : `${codePointName(code)} (${name})`;
}

/**
 * Finds the first character a UTF-8 local part must not hold (RFC 6531 allows any UTF-8; these
 * are refused because they disguise the address). Returns null when there is none.
 */
export function checkLocalCharacters(local: string): SyntaxFailure | null {
  for (const match of local.matchAll(SUSPECT_IN_LOCAL)) {
    const ch = match[0];
    if (ch === ' ') continue;
    return localCharacterFailure(ch.codePointAt(0) as number, ch, match.index + 1);
  }
  return null;
}

function localCharacterFailure(code: number, ch: string, position: number): SyntaxFailure {
  const what = describeCodePoint(code);
  const where = `at position ${position}`;
  if (BIDI_CONTROL.test(ch)) {
    return {
      problem: 'local_bidi_control',
      detail: `The local part contains the bidirectional control ${what} ${where}; it makes an address display in a different order from what is sent`,
    };
  }
  if (SEPARATOR.test(ch)) {
    return {
      problem: 'local_unicode_space',
      detail:
        code === 0x2028 || code === 0x2029
          ? `The local part contains ${what} ${where}; line and paragraph separators are never part of an address`
          : `The local part contains ${what} ${where}, a space that is not the ASCII space; only an ASCII space is allowed, and only inside a quoted local part`,
    };
  }
  if (code === 0xff20 || code === 0xfe6b) {
    return {
      problem: 'local_lookalike_at',
      detail: `The local part contains "${ch}" ${what} ${where}, which looks like "@" but is not one; type the ASCII "@"`,
    };
  }
  if (NONCHARACTER.test(ch)) {
    return {
      problem: 'local_noncharacter',
      detail: `The local part contains the noncharacter ${what} ${where}; noncharacters are for a program's internal use, never for text that is sent`,
    };
  }
  return {
    problem: 'local_invisible_character',
    detail: `The local part contains the invisible character ${what} ${where}; an address with it looks the same as one without, but is another mailbox`,
  };
}

/**
 * Refuses a Unicode domain holding a character IDNA would delete: the A-label form would name a
 * different domain from the text the user sees and typed. Returns null when there is none.
 */
export function checkIdnaIgnored(domain: string): SyntaxFailure | null {
  const match = IDNA_IGNORED.exec(domain);
  if (match === null) return null;
  const what = describeCodePoint(match[0].codePointAt(0) as number);
  const without = domain.replace(IDNA_IGNORED_ALL, '');
  return {
    problem: 'domain_ignored_character',
    detail: `The domain contains the invisible character ${what}, which IDNA (UTS #46) deletes: "${without}" would be checked instead of the domain as written, so the address is refused rather than changed`,
  };
}
