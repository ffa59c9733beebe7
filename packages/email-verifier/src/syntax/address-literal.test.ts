import { parseIp } from '@svc/ip-address';
import { describe, expect, it } from 'vitest';
import { ipv6LiteralProblem } from './ipv6-literal.js';
import { parseAddress } from './parse-address.js';

// RFC 5321 §4.1.3's four IPv6 forms, checked through parseAddress so each case shows what a user sees.
describe('address literals: RFC 5321 IPv6 forms', () => {
  const valid: Array<[form: string, literal: string]> = [
    ['IPv6-full', '2001:db8:0:0:0:0:0:1'],
    ['IPv6-full, 4-digit groups, any case', '2001:0DB8:AbCd:0000:0000:0000:0000:FFFF'],
    ['IPv6-comp, :: for two groups', '2001:db8:1:1:1::1'],
    ['IPv6-comp, :: for two groups at the start', '::1:2:3:4:5:6'],
    ['IPv6-comp, :: for two groups at the end', '1:2:3:4:5:6::'],
    ['IPv6-comp, the usual form', '2001:db8::1'],
    ['IPv6-comp, loopback', '::1'],
    ['IPv6-comp, unspecified', '::'],
    ['IPv6v4-full', '0:0:0:0:0:ffff:192.0.2.1'],
    ['IPv6v4-full, Snum with leading zeros (the grammar allows 1*3DIGIT)', '1:2:3:4:5:6:192.000.002.001'],
    ['IPv6v4-comp, no groups', '::192.0.2.1'],
    ['IPv6v4-comp, mapped', '::ffff:192.0.2.1'],
    ['IPv6v4-comp, four groups beside ::', '1:2::3:4:192.0.2.1'],
    ['IPv6v4-comp, four groups before ::', '1:2:3:4::192.0.2.1'],
  ];

  it.each(valid)('%s: [IPv6:%s] is accepted', (_form, literal) => {
    const result = parseAddress(`user@[IPv6:${literal}]`);
    if (!result.ok) throw new Error(`rejected: ${result.detail}`);
    expect(result.address).toMatchObject({
      domain: `[IPv6:${literal.toLowerCase()}]`,
      asciiDomain: `[IPv6:${literal.toLowerCase()}]`,
      isAddressLiteral: true,
    });
  });

  const invalid: Array<[literal: string, detail: string]> = [
    // "::" must stand for two or more groups: RFC 4291 text allows one, RFC 5321 does not.
    [
      '2001:db8:0:1:1:1::1',
      'The address literal [IPv6:2001:db8:0:1:1:1::1] is not a valid IPv6 address: "::" stands for a single zero group; RFC 5321 lets "::" replace two or more groups, so write that group out: 2001:db8:0:1:1:1:0:1',
    ],
    [
      '::1:2:3:4:5:6:7',
      'The address literal [IPv6:::1:2:3:4:5:6:7] is not a valid IPv6 address: "::" stands for a single zero group; RFC 5321 lets "::" replace two or more groups, so write that group out: 0:1:2:3:4:5:6:7',
    ],
    [
      '1:2:3:4:5:6:7::',
      'The address literal [IPv6:1:2:3:4:5:6:7::] is not a valid IPv6 address: "::" stands for a single zero group; RFC 5321 lets "::" replace two or more groups, so write that group out: 1:2:3:4:5:6:7:0',
    ],
    [
      '1:2:3::4:5:192.0.2.1',
      'The address literal [IPv6:1:2:3::4:5:192.0.2.1] is not a valid IPv6 address: "::" stands for a single zero group; RFC 5321 lets "::" replace two or more groups, so write that group out: 1:2:3:0:4:5:192.0.2.1',
    ],
    [
      '1:2:3:4:5:6:7::8',
      'The address literal [IPv6:1:2:3:4:5:6:7::8] is not a valid IPv6 address: it has 8 groups besides "::"; at most 6 may stand beside it',
    ],
    [
      '1:2:3:4:5::6:192.0.2.1',
      'The address literal [IPv6:1:2:3:4:5::6:192.0.2.1] is not a valid IPv6 address: it has 6 groups before the IPv4 part besides "::"; at most 4 may stand beside it',
    ],
    [
      '1:2:3:4:5:6:7',
      'The address literal [IPv6:1:2:3:4:5:6:7] is not a valid IPv6 address: it has 7 groups; without "::" it needs exactly 8',
    ],
    [
      '1:2:3:4:5:6:7:8:9',
      'The address literal [IPv6:1:2:3:4:5:6:7:8:9] is not a valid IPv6 address: it has 9 groups; without "::" it needs exactly 8',
    ],
    [
      '1:2:3:4:5:6:7:192.0.2.1',
      'The address literal [IPv6:1:2:3:4:5:6:7:192.0.2.1] is not a valid IPv6 address: it has 7 groups before the IPv4 part; without "::" it needs exactly 6',
    ],
    [
      '1:2::3::4',
      'The address literal [IPv6:1:2::3::4] is not a valid IPv6 address: it uses "::" more than once',
    ],
    [
      '1:::2',
      'The address literal [IPv6:1:::2] is not a valid IPv6 address: it has ":::"; groups are separated by one ":", and "::" may appear once',
    ],
    [
      ':1:2:3:4:5:6:7',
      'The address literal [IPv6::1:2:3:4:5:6:7] is not a valid IPv6 address: it starts with a single ":"',
    ],
    ['1::2:', 'The address literal [IPv6:1::2:] is not a valid IPv6 address: it ends with a single ":"'],
    [
      '2001:db8::12345',
      'The address literal [IPv6:2001:db8::12345] is not a valid IPv6 address: the group "12345" has more than 4 hex digits',
    ],
    [
      '2001:db8::g',
      'The address literal [IPv6:2001:db8::g] is not a valid IPv6 address: it contains "g", which is neither a hex digit, ":" nor "."',
    ],
    [
      'fe80::1%eth0',
      'The address literal [IPv6:fe80::1%eth0] is not a valid IPv6 address: it has a zone id ("%eth0"), which RFC 5321 has no syntax for',
    ],
    [
      '192.0.2.1::',
      'The address literal [IPv6:192.0.2.1::] is not a valid IPv6 address: the IPv4 part "192.0.2.1" must come last',
    ],
    [
      '::192.0.2.256',
      'The address literal [IPv6:::192.0.2.256] is not a valid IPv6 address: its IPv4 part "192.0.2.256" is not four decimal numbers from 0 to 255 separated by dots',
    ],
    [
      '::192.0.2',
      'The address literal [IPv6:::192.0.2] is not a valid IPv6 address: its IPv4 part "192.0.2" is not four decimal numbers from 0 to 255 separated by dots',
    ],
    ['', 'The address literal [IPv6:] has no address after "IPv6:"'],
  ];

  it.each(invalid)('[IPv6:%s] is refused', (literal, detail) => {
    expect(parseAddress(`user@[IPv6:${literal}]`)).toEqual({
      ok: false,
      reason: 'invalid_syntax',
      problem: 'address_literal_invalid',
      detail,
    });
  });
});

describe('address literals: agreement with @svc/ip-address', () => {
  // Random near-misses: 0 to 9 groups, sometimes a "::", sometimes a dotted-quad tail, sometimes
  // a broken piece. Whatever RFC 5321 accepts must be an IPv6 address to RFC 4291 too; what RFC
  // 4291 accepts, RFC 5321 refuses only when "::" replaces a single group (ip-address refuses
  // leading zeros in a dotted quad, so none are generated).
  const pieces = ['0', '1', 'ff', 'abcd', 'ABCD', '12345', 'g', '', '1.2.3.4', '256.1.1.1'];
  let seed = 4242;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const randomLiteral = () => {
    const groups = Array.from({ length: Math.floor(random() * 10) }, () =>
      random() < 0.9 ? pick(['0', '1', 'ff', 'abcd', 'ABCD']) : pick(pieces),
    );
    if (random() < 0.3) groups.push(random() < 0.8 ? '192.0.2.1' : pick(pieces));
    let text = groups.join(':');
    if (random() < 0.7) {
      const at = Math.floor(random() * (groups.length + 1));
      text = `${groups.slice(0, at).join(':')}::${groups.slice(at).join(':')}`;
    }
    return text;
  };

  it('on 30,000 random strings', () => {
    let acceptedByBoth = 0;
    let singleGroupGaps = 0;
    for (let i = 0; i < 30_000; i++) {
      const text = randomLiteral();
      if (!text.includes(':')) continue;
      const ours = ipv6LiteralProblem(text) === null;
      let theirs = true;
      try {
        parseIp(text);
      } catch {
        theirs = false;
      }
      if (ours) {
        expect(theirs, text).toBe(true);
        acceptedByBoth++;
      } else if (theirs) {
        expect(ipv6LiteralProblem(text), text).toMatch(/stands for a single zero group/);
        singleGroupGaps++;
      }
    }
    // The generator must reach both kinds of case, or the agreement above proves nothing.
    expect(acceptedByBoth).toBeGreaterThan(100);
    expect(singleGroupGaps).toBeGreaterThan(10);
  });
});
