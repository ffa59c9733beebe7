import { ServiceError } from '@svc/core';
import { seededRandom as seeded } from '@svc/testkit';
import { describe, expect, it } from 'vitest';
import { InvalidIpError } from './errors.js';
import { formatIpv6 } from './format.js';
import { parseIp } from './normalize.js';
import { addressToBigInt, addressToBytes } from './numeric.js';
import { IP_SYNTAX_MESSAGES } from './parse.js';
import type { IpSyntaxRule } from './types.js';

function rejection(input: string): InvalidIpError {
  try {
    parseIp(input);
  } catch (error) {
    if (error instanceof InvalidIpError) return error;
    throw error;
  }
  throw new Error(`${JSON.stringify(input)} was accepted`);
}

describe('parseIp: IPv4', () => {
  it.each([
    ['8.8.8.8', 0x08080808],
    ['1.1.1.1', 0x01010101],
    ['81.2.69.142', 0x5102458e],
    ['0.0.0.0', 0],
    ['255.255.255.255', 0xffffffff],
    ['100.0.10.1', 0x64000a01],
  ])('accepts %s', (input, value) => {
    expect(parseIp(input)).toEqual({ family: 4, canonical: input, value });
  });

  // Each of these is read as a real address by at least one popular parser or mmdb reader.
  it.each<[string, IpSyntaxRule]>([
    ['010.0.0.1', 'ipv4_leading_zero'],
    ['081.2.69.142', 'ipv4_leading_zero'],
    ['1.2.3.00', 'ipv4_leading_zero'],
    ['81.2.69', 'ipv4_parts'],
    [' 8.8.8.8', 'whitespace'],
    ['8.8.8.8 ', 'whitespace'],
    ['8.8.8.8\n', 'whitespace'],
    ['8.8\t.8.8', 'whitespace'],
    ['8.8.8.8/24', 'cidr_suffix'],
    ['1.2.3.4/32', 'cidr_suffix'],
    ['1.2.3.4.5', 'ipv4_parts'],
    ['1.2.3.4.', 'ipv4_parts'],
    ['2130706433', 'ipv4_parts'],
    ['1.2.3', 'ipv4_parts'],
    ['1..2.3', 'ipv4_empty_part'],
    ['.1.2.3', 'ipv4_empty_part'],
    ['256.1.1.1', 'ipv4_range'],
    ['1.2.3.1000', 'ipv4_range'],
    ['1.2.3.-1', 'ipv4_characters'],
    ['0x7f.0.0.1', 'ipv4_characters'],
    ['1.2.3.+4', 'ipv4_characters'],
    ['1e2.0.0.1', 'ipv4_characters'],
    ['localhost', 'ipv4_characters'],
    ['١.٢.٣.٤', 'non_ascii'],
    ['１.２.３.４', 'non_ascii'],
    ['1.2.3.4\u00a0', 'whitespace'],
    ['1\u30022.3.4', 'non_ascii'],
    ['', 'empty'],
    ['[1.2.3.4]', 'brackets'],
    ['1.2.3.4%eth0', 'zone_id'],
  ])('rejects %j (%s)', (input, rule) => {
    const error = rejection(input);
    expect(error.rule).toBe(rule);
    expect(error.message).toBe(
      `${JSON.stringify(input)} is not a valid IP address: ${IP_SYNTAX_MESSAGES[rule]}`,
    );
  });

  it('says which rule failed, exactly as documented', () => {
    expect(() => parseIp('010.0.0.1')).toThrow(
      '"010.0.0.1" is not a valid IP address: IPv4 parts must be decimal without leading zeros',
    );
  });

  it('throws ServiceError with code invalid_ip', () => {
    const error = rejection('300.1.1.1');
    expect(ServiceError.is(error)).toBe(true);
    expect(error).toBeInstanceOf(ServiceError);
    expect(error.code).toBe('invalid_ip');
    expect(error.status).toBe(400);
    expect(error.input).toBe('300.1.1.1');
    expect(error.classification).toBeNull();
  });

  it('matches a strict dotted-quad regex on random inputs', () => {
    const strict = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]\d|\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]\d|\d)$/;
    const random = seeded(4);
    const alphabet = '0123456789.....';
    for (let round = 0; round < 20_000; round++) {
      let input = '';
      const length = 1 + Math.floor(random() * 16);
      for (let index = 0; index < length; index++) input += alphabet[Math.floor(random() * alphabet.length)];
      let accepted = true;
      try {
        parseIp(input);
      } catch {
        accepted = false;
      }
      expect(accepted, input).toBe(strict.test(input));
    }
  });
});

describe('parseIp: IPv6', () => {
  it.each([
    ['2001:4860:4860::8888', '2001:4860:4860::8888'],
    ['2001:4860:4860:0:0:0:0:8888', '2001:4860:4860::8888'],
    ['2001:4860:4860:0000:0000:0000:0000:8888', '2001:4860:4860::8888'],
    ['2A02:2E0:3FE:1001:7777:772E:2:85', '2a02:2e0:3fe:1001:7777:772e:2:85'],
    ['2a02:2E0:03fe:1001:7777:772e:0002:0085', '2a02:2e0:3fe:1001:7777:772e:2:85'],
    ['::', '::'],
    ['::1', '::1'],
    ['1::', '1::'],
    ['1:2:3:4:5:6:7::', '1:2:3:4:5:6:7:0'],
    ['::2:3:4:5:6:7:8', '0:2:3:4:5:6:7:8'],
    ['1:0:0:2:0:0:0:3', '1:0:0:2::3'],
    ['1:0:0:2:2:0:0:3', '1::2:2:0:0:3'],
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    ['::1.2.3.4', '::102:304'],
    ['64:ff9b::8.8.8.8', '64:ff9b::808:808'],
    ['1:2:3:4:5:6:1.2.3.4', '1:2:3:4:5:6:102:304'],
  ])('reads %s as %s (RFC 5952)', (input, canonical) => {
    const parsed = parseIp(input);
    expect(parsed.family).toBe(6);
    expect(parsed.canonical).toBe(canonical);
  });

  it('keeps the eight groups', () => {
    expect(parseIp('2001:db8::ff00:42:8329')).toMatchObject({
      words: [0x2001, 0xdb8, 0, 0, 0, 0xff00, 0x42, 0x8329],
    });
  });

  it.each([
    ['::ffff:1.2.3.4', '1.2.3.4'],
    ['::ffff:8.8.8.8', '8.8.8.8'],
    ['::FFFF:8.8.8.8', '8.8.8.8'],
    ['::ffff:0808:0808', '8.8.8.8'],
    ['0:0:0:0:0:ffff:5102:458e', '81.2.69.142'],
    ['::ffff:0:0', '0.0.0.0'],
  ])('unwraps the IPv4-mapped %s to %s', (input, ipv4) => {
    expect(parseIp(input)).toMatchObject({ family: 4, canonical: ipv4 });
  });

  it.each<[string, IpSyntaxRule]>([
    ['fe80::1%eth0', 'zone_id'],
    ['fe80::1%1', 'zone_id'],
    ['1:2:3:4:5:6:7:8:9', 'ipv6_group_count'],
    ['1:2:3:4:5:6:7', 'ipv6_group_count'],
    ['1:2:3:4::5:6:7:8', 'ipv6_group_count'],
    ['1:2:3:4:5:6:7:1.2.3.4', 'ipv6_group_count'],
    ['1:2:3:4:5:6::7:1.2.3.4', 'ipv6_group_count'],
    [':::', 'ipv6_colons'],
    ['1::2::3', 'ipv6_colons'],
    ['1:::2', 'ipv6_colons'],
    [':1::', 'ipv6_edge_colon'],
    ['1::2:', 'ipv6_edge_colon'],
    [':', 'ipv6_edge_colon'],
    ['12345::', 'ipv6_group_length'],
    ['::00001', 'ipv6_group_length'],
    ['g::1', 'ipv6_characters'],
    ['1:-2::', 'ipv6_characters'],
    ['::1.2.3.4:5', 'ipv6_embedded_ipv4_position'],
    ['1.2.3.4::', 'ipv6_embedded_ipv4_position'],
    ['[::1]', 'brackets'],
    ['::1/128', 'cidr_suffix'],
    [' ::1', 'whitespace'],
    ['::１', 'non_ascii'],
    ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'too_long'],
  ])('rejects %j (%s)', (input, rule) => {
    const error = rejection(input);
    expect(error.rule).toBe(rule);
    expect(error.code).toBe('invalid_ip');
  });

  it.each<[string, IpSyntaxRule]>([
    ['::ffff:010.0.0.1', 'ipv4_leading_zero'],
    ['::ffff:1.2.3', 'ipv4_parts'],
    ['::ffff:1.2.3.256', 'ipv4_range'],
    ['::ffff:1.2..3', 'ipv4_empty_part'],
    ['::ffff:1.2.3.0x1', 'ipv4_characters'],
    ['64:ff9b::08.8.8.8', 'ipv4_leading_zero'],
  ])('applies the strict IPv4 rule inside IPv6: %j', (input, embeddedRule) => {
    const error = rejection(input);
    expect(error.rule).toBe('ipv6_embedded_ipv4');
    expect(error.message).toBe(
      `${JSON.stringify(input)} is not a valid IP address: in the embedded IPv4 address, ${IP_SYNTAX_MESSAGES[embeddedRule]}`,
    );
  });

  it('agrees with the WHATWG URL parser (strict RFC 4291, no zones) on random inputs', () => {
    const random = seeded(6);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
    let valid = 0;
    for (let round = 0; round < 30_000; round++) {
      const groups: string[] = [];
      const count = Math.floor(random() * 10);
      for (let index = 0; index < count; index++) {
        const length = pick([0, 1, 1, 2, 3, 4, 4, 4, 5]);
        let group = '';
        for (let digit = 0; digit < length; digit++) group += pick([...'0000123456789abcdefABCDEF']);
        groups.push(group);
      }
      let input = groups.join(':');
      if (random() < 0.5) {
        const at = Math.floor(random() * (groups.length + 1));
        input = [...groups.slice(0, at), '', ...groups.slice(at)].join(':');
        if (at === 0 || at === groups.length) input = at === 0 ? `:${input}` : `${input}:`;
      }
      if (random() < 0.2) {
        const parts = Array.from({ length: pick([3, 4, 4, 4, 5]) }, () =>
          pick(['0', '1', '8', '01', '99', '255', '256']),
        );
        input = `${input}${input.endsWith(':') || input === '' ? '' : ':'}${parts.join('.')}`;
      }
      // Inputs without a colon are dotted quads, covered by the IPv4 test above.
      if (!input.includes(':')) continue;
      let expected: string | null;
      try {
        expected = new URL(`http://[${input}]/`).hostname;
      } catch {
        expected = null;
      }
      let actual: string | null;
      try {
        const parsed = parseIp(input);
        // The URL parser keeps IPv4-mapped addresses as IPv6: compare in that form.
        actual = parsed.family === 6 ? `[${parsed.canonical}]` : `[::ffff:${hexPair(parsed.value)}]`;
      } catch (error) {
        if (!(error instanceof InvalidIpError)) throw error;
        actual = null;
      }
      expect(actual, input).toBe(expected);
      if (actual !== null) valid++;
    }
    // The generator must exercise the accepting path too, not only rejections.
    expect(valid).toBeGreaterThan(1000);
  });
});

describe('formatIpv6 (RFC 5952 §4)', () => {
  it.each([
    [[0, 0, 0, 0, 0, 0, 0, 0], '::'],
    [[1, 0, 0, 0, 0, 0, 0, 0], '1::'],
    [[0, 0, 0, 0, 0, 0, 0, 1], '::1'],
    // A single zero group is not compressed.
    [[0x2001, 0xdb8, 0, 1, 1, 1, 1, 1], '2001:db8:0:1:1:1:1:1'],
    // The longest run wins; on a tie the first one.
    [[0x2001, 0, 0, 1, 0, 0, 0, 1], '2001:0:0:1::1'],
    [[0x2001, 0xdb8, 0, 0, 1, 0, 0, 1], '2001:db8::1:0:0:1'],
    [
      [0xabcd, 0xef01, 0x2345, 0x6789, 0xabcd, 0xef01, 0x2345, 0x6789],
      'abcd:ef01:2345:6789:abcd:ef01:2345:6789',
    ],
  ])('formats %j as %s', (words, text) => {
    expect(formatIpv6(words)).toBe(text);
  });
});

describe('numeric forms', () => {
  it('gives network-order bytes and integers for both families', () => {
    expect([...addressToBytes(parseIp('81.2.69.142'))]).toEqual([81, 2, 69, 142]);
    expect(addressToBigInt(parseIp('255.255.255.255'))).toBe(0xffffffffn);
    const v6 = parseIp('2001:db8::ff00:42:8329');
    expect([...addressToBytes(v6)]).toEqual([
      0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0xff, 0, 0, 0x42, 0x83, 0x29,
    ]);
    expect(addressToBigInt(v6)).toBe(0x20010db8000000000000ff0000428329n);
  });
});

function hexPair(value: number): string {
  return `${(value >>> 16).toString(16)}:${(value & 0xffff).toString(16)}`;
}
