import { ServiceError } from '@svc/core';
import { describe, expect, it } from 'vitest';
import { checkDomainName, scanDomainName } from './domain-name.js';
import { checkLocalPart, scanLocalPart } from './local-part.js';
import { parseAddress, parseAddressOrThrow } from './parse-address.js';
import type { SyntaxProblem } from './problems.js';

const local64 = 'a'.repeat(64);
const label63 = 'b'.repeat(63);
// 64 + 1 + 63 + 1 + 63 + 1 + 57 + 4 = 254 octets exactly.
const address254 = `${local64}@${label63}.${label63}.${'c'.repeat(57)}.com`;

describe('parseAddress: valid addresses', () => {
  const cases: Array<[string, { local: string; domain: string; asciiDomain?: string; normalized?: string }]> =
    [
      ['user@example.com', { local: 'user', domain: 'example.com' }],
      [
        'User.Name@Example.COM',
        { local: 'User.Name', domain: 'example.com', normalized: 'User.Name@example.com' },
      ],
      ['user+tag@sub.example.co.uk', { local: 'user+tag', domain: 'sub.example.co.uk' }],
      ["o'brien!#$%&*/=?^_`{|}~-@example.org", { local: "o'brien!#$%&*/=?^_`{|}~-", domain: 'example.org' }],
      ['x@a-b.example', { local: 'x', domain: 'a-b.example' }],
      ['1@2.example', { local: '1', domain: '2.example' }],
      ['"john doe"@example.com', { local: '"john doe"', domain: 'example.com' }],
      ['"a@b"@example.com', { local: '"a@b"', domain: 'example.com' }],
      ['"a\\"b"@example.com', { local: '"a\\"b"', domain: 'example.com' }],
      ['"a..b"@example.com', { local: '"a..b"', domain: 'example.com' }],
      ['"(not a comment)"@example.com', { local: '"(not a comment)"', domain: 'example.com' }],
      ['user@bücher.de', { local: 'user', domain: 'bücher.de', asciiDomain: 'xn--bcher-kva.de' }],
      ['user@BÜCHER.de', { local: 'user', domain: 'bücher.de', asciiDomain: 'xn--bcher-kva.de' }],
      ['user@xn--bcher-kva.de', { local: 'user', domain: 'xn--bcher-kva.de' }],
      ['user@例え.テスト', { local: 'user', domain: '例え.テスト', asciiDomain: 'xn--r8jz45g.xn--zckzah' }],
      ['user@example.xn--p1ai', { local: 'user', domain: 'example.xn--p1ai' }],
      ['user@[192.0.2.1]', { local: 'user', domain: '[192.0.2.1]' }],
      ['user@[IPv6:2001:db8::1]', { local: 'user', domain: '[IPv6:2001:db8::1]' }],
      ['user@[ipv6:2001:DB8::1]', { local: 'user', domain: '[IPv6:2001:db8::1]' }],
      [`${local64}@example.com`, { local: local64, domain: 'example.com' }],
      [address254, { local: local64, domain: address254.slice(65) }],
      [`x@${label63}.com`, { local: 'x', domain: `${label63}.com` }],
    ];

  it.each(cases)('%s', (input, expected) => {
    const result = parseAddress(input);
    if (!result.ok) throw new Error(`rejected: ${result.detail}`);
    const asciiDomain = expected.asciiDomain ?? expected.domain;
    expect(result.address).toEqual({
      local: expected.local,
      domain: expected.domain,
      asciiDomain,
      normalized: expected.normalized ?? `${expected.local}@${asciiDomain}`,
      isAddressLiteral: expected.domain.startsWith('['),
      requiresSmtpUtf8: false,
    });
  });

  it('splits at the last @', () => {
    const result = parseAddress('"a@b@c"@example.com');
    expect(result.ok && result.address.local).toBe('"a@b@c"');
  });
});

describe('parseAddress: rejections with their detail', () => {
  const cases: Array<[string, SyntaxProblem, RegExp]> = [
    ['', 'empty', /is empty/],
    [
      'user\r\n@example.com',
      'control_character',
      /carriage return \(CR\) at position 5.*inject SMTP commands/,
    ],
    ['user@example.com\r\nRCPT TO:<x@y.z>', 'control_character', /carriage return \(CR\) at position 17/],
    ['user\n@example.com', 'control_character', /line feed \(LF\) at position 5.*inject SMTP commands/],
    ['user@exa\nmple.com', 'control_character', /line feed \(LF\)/],
    ['us\u0000er@example.com', 'control_character', /NUL character at position 3/],
    ['user\t@example.com', 'control_character', /control character U\+0009 at position 5/],
    ['user@example.com\u007f', 'control_character', /control character U\+007F/],
    ['user\u0085@example.com', 'control_character', /control character U\+0085/],
    ['user\u001b@example.com', 'control_character', /U\+001B/],
    ['"a\u0007"@example.com', 'control_character', /U\+0007/],
    ['us\ud800er@example.com', 'invalid_unicode', /unpaired surrogate \(U\+D800\)/],
    ['user@example.com\udc00', 'invalid_unicode', /unpaired surrogate \(U\+DC00\)/],
    [' user@example.com', 'surrounding_whitespace', /white space; trim it/],
    ['user@example.com ', 'surrounding_whitespace', /white space/],
    ['\u00a0user@example.com', 'surrounding_whitespace', /white space/],
    ['userexample.com', 'missing_at', /no "@"/],
    ['@example.com', 'empty_local_part', /local part \(before "@"\) is empty/],
    ['user@', 'empty_domain', /domain \(after "@"\) is empty/],
    ['.user@example.com', 'local_leading_dot', /local part starts with a dot/],
    ['user.@example.com', 'local_trailing_dot', /local part ends with a dot/],
    ['us..er@example.com', 'local_consecutive_dots', /two consecutive dots/],
    ['us er@example.com', 'local_invalid_character', /contains a space/],
    ['a@b@example.com', 'local_invalid_character', /more than one "@"/],
    ['us,er@example.com', 'local_invalid_character', /contains "," at position 3/],
    ['us\\er@example.com', 'local_invalid_character', /contains "\\\\"/],
    ['a[b]@example.com', 'local_invalid_character', /contains "\["/],
    ['a(comment)@example.com', 'comment', /Comments in parentheses are not allowed/],
    ['(comment)a@example.com', 'comment', /Comments/],
    ['a@example.com(comment)', 'comment', /Comments/],
    ['a@(comment)example.com', 'comment', /Comments/],
    ['"a"."b"@example.com', 'local_partially_quoted', /whole local part may be quoted/],
    ['a."b"@example.com', 'local_partially_quoted', /whole local part may be quoted/],
    ['"a"b@example.com', 'local_partially_quoted', /text after the closing quote/],
    ['"abc@example.com', 'local_unterminated_quote', /no closing quote/],
    ['"abc\\"@example.com', 'local_unterminated_quote', /no closing quote/],
    ['""@example.com', 'local_empty_quoted', /quoted local part is empty/],
    ['"a\\é"@example.com', 'local_invalid_quoted_pair', /backslash/],
    ['δοκιμή@example.com', 'local_utf8_not_allowed', /non-ASCII.*allowUtf8LocalPart/],
    ['"δοκιμή"@example.com', 'local_utf8_not_allowed', /allowUtf8LocalPart/],
    [`${'a'.repeat(65)}@example.com`, 'local_too_long', /65 octets long; the limit is 64/],
    [`${'é'.repeat(33)}@example.com`, 'local_utf8_not_allowed', /allowUtf8LocalPart/],
    ['user@.example.com', 'domain_leading_dot', /domain starts with a dot/],
    ['user@example.com.', 'domain_trailing_dot', /domain ends with a dot/],
    ['user@example..com', 'domain_empty_label', /two consecutive dots/],
    ['user@exam_ple.com', 'domain_invalid_character', /contains "_"/],
    ['user@exam ple.com', 'domain_invalid_character', /contains a space/],
    ['user@exa%41mple.com', 'domain_invalid_character', /contains "%"/],
    ['user@bü%41cher.de', 'domain_invalid_character', /contains "%"/],
    ['user@-example.com', 'domain_label_hyphen', /"-example" starts or ends with a hyphen/],
    ['user@example-.com', 'domain_label_hyphen', /hyphen/],
    [`user@${'b'.repeat(64)}.com`, 'domain_label_too_long', /64 characters long; the limit is 63/],
    ['user@localhost', 'domain_single_label', /single label/],
    ['user@192.0.2.1', 'domain_numeric_tld', /address literal like \[192\.0\.2\.1\]/],
    ['user@example.123', 'domain_numeric_tld', /all digits/],
    ['user@xn--a.xn--b', 'domain_invalid_idn', /not a valid internationalised domain name/u],
    ['user@[192.0.2.1', 'address_literal_invalid', /not closed with "\]"/],
    ['user@[192.0.2.256]', 'address_literal_invalid', /not a valid IPv4 address/],
    ['user@[192.0.2]', 'address_literal_invalid', /not a valid IPv4 address/],
    ['user@[IPv6:2001:db8::g]', 'address_literal_invalid', /not a valid IPv6 address/],
    ['user@[IPv6:fe80::1%eth0]', 'address_literal_invalid', /not a valid IPv6 address/],
    ['user@[x400:whatever]', 'address_literal_invalid', /only \[IPv4\] and \[IPv6:...\] literals/],
    [
      `${local64}@${label63}.${label63}.${label63}.${'c'.repeat(60)}`,
      'address_too_long',
      /is 317 octets long; the limit is 254/,
    ],
    [
      `${local64}@${label63}.${label63}.${'c'.repeat(58)}.com`,
      'address_too_long',
      /255 octets long; the limit is 254/,
    ],
    [`x@${`${'d'.repeat(63)}.`.repeat(4)}com`, 'domain_too_long', /259 octets long; the limit is 255/],
    ['a'.repeat(5000), 'address_too_long', /5000 characters long/],
  ];

  it.each(cases)('%j → %s', (input, problem, detail) => {
    const result = parseAddress(input);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.reason).toBe('invalid_syntax');
    expect(result.problem).toBe(problem);
    expect(result.detail).toMatch(detail);
  });

  it('reports a control character before any other problem', () => {
    const result = parseAddress('..a..\r\n@@');
    expect(!result.ok && result.problem).toBe('control_character');
  });

  it('refuses what is not a string instead of throwing', () => {
    const result = parseAddress(42 as unknown as string);
    expect(result).toMatchObject({
      ok: false,
      problem: 'not_a_string',
      detail: 'Expected a string, got number',
    });
  });
});

describe('parseAddress: UTF-8 local parts (RFC 6531)', () => {
  it('accepts them with allowUtf8LocalPart and says SMTPUTF8 is required', () => {
    const result = parseAddress('δοκιμή@παράδειγμα.δοκιμή', { allowUtf8LocalPart: true });
    expect(result).toEqual({
      ok: true,
      address: {
        local: 'δοκιμή',
        domain: 'παράδειγμα.δοκιμή',
        asciiDomain: 'xn--hxajbheg2az3al.xn--jxalpdlp',
        normalized: 'δοκιμή@xn--hxajbheg2az3al.xn--jxalpdlp',
        isAddressLiteral: false,
        requiresSmtpUtf8: true,
      },
    });
  });

  it('accepts quoted UTF-8 with the option', () => {
    const result = parseAddress('"δοκ ιμή"@example.com', { allowUtf8LocalPart: true });
    expect(result.ok && result.address.requiresSmtpUtf8).toBe(true);
  });

  it('counts the local part limit in UTF-8 octets, not characters', () => {
    const ok = parseAddress(`${'é'.repeat(32)}@example.com`, { allowUtf8LocalPart: true });
    expect(ok.ok).toBe(true);
    const tooLong = parseAddress(`${'é'.repeat(33)}@example.com`, { allowUtf8LocalPart: true });
    expect(tooLong).toMatchObject({
      ok: false,
      problem: 'local_too_long',
      detail: expect.stringMatching(/66 octets/),
    });
  });

  it('keeps an IDN domain with an ASCII local part free of the SMTPUTF8 requirement', () => {
    const result = parseAddress('user@bücher.de', { allowUtf8LocalPart: true });
    expect(result.ok && result.address.requiresSmtpUtf8).toBe(false);
  });

  it('still rejects control characters in C1 with the option', () => {
    const result = parseAddress('δο\u0090@example.com', { allowUtf8LocalPart: true });
    expect(!result.ok && result.detail).toMatch(/U\+0090/);
  });
});

describe('parseAddressOrThrow', () => {
  it('returns the address', () => {
    expect(parseAddressOrThrow('a@example.com').normalized).toBe('a@example.com');
  });

  it('throws an unprocessable ServiceError carrying the detail', () => {
    let caught: unknown;
    try {
      parseAddressOrThrow('a\n@example.com');
    } catch (error) {
      caught = error;
    }
    expect(ServiceError.is(caught)).toBe(true);
    expect(caught).toMatchObject({
      code: 'unprocessable',
      status: 422,
      message: expect.stringMatching(/line feed/),
    });
  });
});

describe('fast paths agree with the scanners', () => {
  // Random strings over an alphabet full of the characters that matter, so the regex fast paths
  // are checked against the explaining scanners on every kind of near-miss.
  const alphabet = 'aZ09.-_"\\@ ()[]+é'.split('');
  let seed = 12345;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const randomString = () => {
    const length = 1 + Math.floor(random() * 12);
    let text = '';
    for (let i = 0; i < length; i++) text += alphabet[Math.floor(random() * alphabet.length)];
    return text;
  };

  it('local parts', () => {
    for (let i = 0; i < 20_000; i++) {
      const text = randomString();
      expect(checkLocalPart(text, false) === null, text).toBe(scanLocalPart(text, false) === null);
    }
  });

  it('domain names', () => {
    for (let i = 0; i < 20_000; i++) {
      const text = randomString().replace(/[éA-Z]/g, 'x');
      expect(checkDomainName(text) === null, text).toBe(scanDomainName(text) === null);
    }
    for (const name of [
      'a.b',
      `${'a'.repeat(63)}.com`,
      `${'a'.repeat(64)}.com`,
      'a.1b',
      'a.b1',
      'a.123',
      'A.COM',
    ]) {
      expect(checkDomainName(name) === null, name).toBe(scanDomainName(name) === null);
    }
  });
});
