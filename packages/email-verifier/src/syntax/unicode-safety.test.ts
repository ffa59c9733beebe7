import { domainToASCII } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseAddress } from './parse-address.js';
import type { SyntaxProblem } from './problems.js';
import { IDNA_IGNORED } from './unicode-safety.js';

const utf8 = { allowUtf8LocalPart: true };
const hex = (code: number) => code.toString(16).toUpperCase().padStart(4, '0');

describe('UTF-8 local parts: characters that disguise an address are refused', () => {
  const cases: Array<[input: string, problem: SyntaxProblem, detail: string]> = [
    [
      'δοκ\u202eιμή@example.com',
      'local_bidi_control',
      'The local part contains the bidirectional control U+202E (right-to-left override) at position 4; it makes an address display in a different order from what is sent',
    ],
    [
      'δοκ\u200bιμή@example.com',
      'local_invisible_character',
      'The local part contains the invisible character U+200B (zero width space) at position 4; an address with it looks the same as one without, but is another mailbox',
    ],
    [
      '"δοκ\u00a0ιμή"@example.com',
      'local_unicode_space',
      'The local part contains U+00A0 (no-break space) at position 5, a space that is not the ASCII space; only an ASCII space is allowed, and only inside a quoted local part',
    ],
    [
      'δοκ\u2028ιμή@example.com',
      'local_unicode_space',
      'The local part contains U+2028 (line separator) at position 4; line and paragraph separators are never part of an address',
    ],
    [
      'user\uff20example.com@attacker.example',
      'local_lookalike_at',
      'The local part contains "＠" U+FF20 (full-width commercial at) at position 5, which looks like "@" but is not one; type the ASCII "@"',
    ],
    [
      'δοκ\ufdd0@example.com',
      'local_noncharacter',
      "The local part contains the noncharacter U+FDD0 at position 4; noncharacters are for a program's internal use, never for text that is sent",
    ],
  ];

  it.each(cases)('%j → %s', (input, problem, detail) => {
    expect(parseAddress(input, utf8)).toEqual({ ok: false, reason: 'invalid_syntax', problem, detail });
  });

  // Every character the issue names, each in a dot-atom and in a quoted local part.
  const named: Array<[problem: SyntaxProblem, codes: number[]]> = [
    [
      'local_bidi_control',
      [0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069],
    ],
    ['local_invisible_character', [0x00ad, 0x200b, 0x200c, 0x200d, 0x2060, 0xfeff, 0x3164, 0xfe0f, 0xe0100]],
    ['local_unicode_space', [0x00a0, 0x1680, 0x2000, 0x2005, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000]],
    ['local_lookalike_at', [0xff20, 0xfe6b]],
    [
      'local_noncharacter',
      [
        0xfdd0,
        0xfdef,
        ...Array.from({ length: 17 }, (_, plane) => [
          plane * 0x10000 + 0xfffe,
          plane * 0x10000 + 0xffff,
        ]).flat(),
      ],
    ],
  ];
  for (const [problem, codes] of named) {
    it(`${problem}: ${codes.map(hex).join(' ')}`, () => {
      for (const code of codes) {
        const ch = String.fromCodePoint(code);
        for (const input of [`ü${ch}x@example.com`, `"ü ${ch}"@example.com`]) {
          const result = parseAddress(input, utf8);
          expect(result.ok ? 'accepted' : result.problem, `U+${hex(code)} in ${JSON.stringify(input)}`).toBe(
            problem,
          );
        }
      }
    });
  }

  it('refuses every Unicode space but the ASCII one (all of \\p{Zs}, \\p{Zl}, \\p{Zp})', () => {
    for (let code = 0x80; code <= 0x10ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const ch = String.fromCodePoint(code);
      if (!/\p{Z}/u.test(ch)) continue;
      const result = parseAddress(`"a${ch}b"@example.com`, utf8);
      expect(!result.ok && result.problem, `U+${hex(code)}`).toBe('local_unicode_space');
    }
  });

  it('still accepts an ASCII space in a quoted UTF-8 local part, and ordinary scripts', () => {
    for (const input of [
      '"δοκ ιμή"@example.com',
      'josé.garcía@example.com',
      '用户@例子.广告',
      'अजय@example.com',
    ]) {
      expect(parseAddress(input, utf8).ok, input).toBe(true);
    }
  });

  it('without allowUtf8LocalPart these are refused as non-ASCII, as before', () => {
    expect(parseAddress('a\u200b@example.com')).toMatchObject({ problem: 'local_utf8_not_allowed' });
  });

  it('names a full-width "＠" typed instead of "@"', () => {
    expect(parseAddress('user\uff20example.com')).toEqual({
      ok: false,
      reason: 'invalid_syntax',
      problem: 'missing_at',
      detail:
        'The address has no "@" between local part and domain; it has "＠" U+FF20 (full-width commercial at) instead, type the ASCII "@"',
    });
  });
});

describe('UTF-8 local parts are normalised to NFC', () => {
  it('composes a decomposed local part; local and normalized carry the NFC form', () => {
    const result = parseAddress('jose\u0301@example.com', utf8);
    expect(result).toMatchObject({
      ok: true,
      address: { local: 'jos\u00e9', normalized: 'jos\u00e9@example.com', requiresSmtpUtf8: true },
    });
  });

  it('gives composed and decomposed spellings the same normalized address', () => {
    const composed = parseAddress('jos\u00e9@bücher.de', utf8);
    const decomposed = parseAddress('jose\u0301@bu\u0308cher.de', utf8);
    expect(composed.ok && decomposed.ok).toBe(true);
    if (!composed.ok || !decomposed.ok) return;
    expect(decomposed.address.normalized).toBe(composed.address.normalized);
    expect(decomposed.address.normalized).toBe('jos\u00e9@xn--bcher-kva.de');
  });

  it('rebuilds normalized when NFC changes characters without changing the length', () => {
    // U+212B ANGSTROM SIGN is canonically U+00C5: one UTF-16 unit either way.
    const result = parseAddress('\u212B@example.com', utf8);
    expect(result.ok && result.address.normalized).toBe('\u00C5@example.com');
  });

  it('measures the 64-octet limit on the NFC form, which is what is sent', () => {
    // 22 × "e" + U+0301 is 66 octets as given and 44 (22 × "é") once composed.
    const result = parseAddress(`${'e\u0301'.repeat(22)}@example.com`, utf8);
    expect(result.ok && result.address.local).toBe('\u00e9'.repeat(22));
  });
});

describe('what normalisation produces passes the grammar again', () => {
  it('refuses a local part whose NFC form holds a character atext forbids (U+037E is canonically ";")', () => {
    expect(parseAddress('a\u037Eb@example.com', utf8)).toEqual({
      ok: false,
      reason: 'invalid_syntax',
      problem: 'local_invalid_character',
      detail:
        'In Unicode normal form (NFC), the form that would be sent, the local part is "a;b", which is not valid: The local part contains ";" at position 2, which is only allowed inside a quoted local part',
    });
  });

  it('accepts the same character inside quotes, where ";" is allowed, and needs no SMTPUTF8 for the ASCII result', () => {
    expect(parseAddress('"a\u037Eb"@example.com', utf8)).toMatchObject({
      ok: true,
      address: { local: '"a;b"', normalized: '"a;b"@example.com', requiresSmtpUtf8: false },
    });
  });

  it.each([
    ['\u212Aelvin@example.com', 'Kelvin@example.com'], // U+212A KELVIN SIGN → "K"
    ['a\u1FEFb@example.com', 'a`b@example.com'], // U+1FEF GREEK VARIA → "`" (atext)
  ])('%j normalises to the all-ASCII %j: requiresSmtpUtf8 is false', (input, normalized) => {
    expect(parseAddress(input, utf8)).toMatchObject({
      ok: true,
      address: { normalized, requiresSmtpUtf8: false },
    });
  });

  it('keeps a code point only NFKC would map (U+FF1B FULLWIDTH SEMICOLON): NFC leaves it, so it is sent as typed', () => {
    expect(parseAddress('a\uFF1Bb@example.com', utf8)).toMatchObject({
      ok: true,
      address: { local: 'a\uFF1Bb', requiresSmtpUtf8: true },
    });
  });

  it.each([
    ['U+FF1B (NFKC → ";")', 'user@a\uFF1Bb.com', 'domain_invalid_character'],
    ['U+037E (NFC → ";")', 'user@a\u037Eb.com', 'domain_invalid_character'],
    // The URL host parser itself refuses "/": no A-label form at all.
    ['U+FF0F (NFKC → "/")', 'user@a\uFF0Fb.com', 'domain_invalid_idn'],
  ])(
    'refuses a domain that IDNA (UTS #46, NFKC) maps to a forbidden ASCII character: %s',
    (_, input, problem) => {
      expect(parseAddress(input)).toMatchObject({ ok: false, problem });
    },
  );

  it('every address accepted after NFC changed its local part re-parses to itself, SMTPUTF8 only when non-ASCII remains', () => {
    let changed = 0;
    for (let code = 0x80; code <= 0x10ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const ch = String.fromCodePoint(code);
      if (ch.normalize('NFC') === ch) continue;
      changed++;
      for (const local of [`a${ch}b`, `"a${ch}b"`]) {
        const first = parseAddress(`${local}@example.com`, utf8);
        if (!first.ok) continue;
        const again = parseAddress(first.address.normalized, utf8);
        expect(again, `${hex(code)} in ${local}`).toMatchObject({
          ok: true,
          address: { normalized: first.address.normalized },
        });
        expect(first.address.requiresSmtpUtf8, hex(code)).toBe(/\P{ASCII}/u.test(first.address.local));
      }
    }
    expect(changed).toBeGreaterThan(1000);
  });
});

describe('domains: characters IDNA would silently delete are refused', () => {
  const cases: Array<[input: string, detail: string]> = [
    [
      'user@exa\u200bmple.com',
      'The domain contains the invisible character U+200B (zero width space), which IDNA (UTS #46) deletes: "example.com" would be checked instead of the domain as written, so the address is refused rather than changed',
    ],
    [
      'user@\ufeffbücher.de',
      'The domain contains the invisible character U+FEFF (zero width no-break space, BOM), which IDNA (UTS #46) deletes: "bücher.de" would be checked instead of the domain as written, so the address is refused rather than changed',
    ],
    [
      'user@pay\u00adpal.com',
      'The domain contains the invisible character U+00AD (soft hyphen), which IDNA (UTS #46) deletes: "paypal.com" would be checked instead of the domain as written, so the address is refused rather than changed',
    ],
    [
      'user@exam\u2060ple.com',
      'The domain contains the invisible character U+2060 (word joiner), which IDNA (UTS #46) deletes: "example.com" would be checked instead of the domain as written, so the address is refused rather than changed',
    ],
    [
      'user@example\ufe0f.com',
      'The domain contains the invisible character U+FE0F (variation selector-16), which IDNA (UTS #46) deletes: "example.com" would be checked instead of the domain as written, so the address is refused rather than changed',
    ],
  ];

  it.each(cases)('%j', (input, detail) => {
    expect(parseAddress(input)).toEqual({
      ok: false,
      reason: 'invalid_syntax',
      problem: 'domain_ignored_character',
      detail,
    });
  });

  it("IDNA_IGNORED is exactly the set of code points Node's domainToASCII deletes", () => {
    const listed: number[] = [];
    const deleted: number[] = [];
    for (let code = 0x80; code <= 0x10ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const ch = String.fromCodePoint(code);
      if (IDNA_IGNORED.test(ch)) listed.push(code);
      if (domainToASCII(`a${ch}.example`) === 'a.example') deleted.push(code);
    }
    expect(listed.map(hex)).toEqual(deleted.map(hex));
    expect(deleted.length).toBeGreaterThan(250);
  });

  it('keeps accepting visible mappings UTS #46 makes (width, case), which change no letter a reader sees', () => {
    const result = parseAddress('user@ｅｘａｍｐｌｅ.com');
    expect(result.ok && result.address.asciiDomain).toBe('example.com');
  });
});
