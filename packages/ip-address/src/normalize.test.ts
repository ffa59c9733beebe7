import { ServiceError } from '@svc/core';
import { describe, expect, it } from 'vitest';
import { classificationMessage, classifyAddress, embeddedIpv4 } from './classify.js';
import { InvalidIpError } from './errors.js';
import { checkIp, normalizeIp, parseIp } from './normalize.js';
import type { ParsedIpv6 } from './types.js';

function refusal(input: unknown): InvalidIpError {
  try {
    normalizeIp(input as string);
  } catch (error) {
    if (error instanceof InvalidIpError) return error;
    throw error;
  }
  throw new Error(`${String(input)} was accepted`);
}

function v6(input: string): ParsedIpv6 {
  const parsed = parseIp(input);
  if (parsed.family !== 6) throw new Error(`${input} is not IPv6`);
  return parsed;
}

describe('known traps of mmdb readers and other parsers', () => {
  it.each(['081.2.69.142', '81.2.69', ' 8.8.8.8', '8.8.8.8/24'])(
    'refuses %j, which maxmind Reader.get() answers',
    (input) => {
      expect(refusal(input).code).toBe('invalid_ip');
      expect(checkIp(input).ok).toBe(false);
    },
  );

  it('refuses 010.0.0.1 instead of reading it as octal 8.0.0.1 or decimal 10.0.0.1', () => {
    const error = refusal('010.0.0.1');
    expect(error.rule).toBe('ipv4_leading_zero');
    expect(error.message).toBe(
      '"010.0.0.1" is not a valid IP address: IPv4 parts must be decimal without leading zeros',
    );
  });

  it('hands readers the plain IPv4 for ::ffff:8.8.8.8, so files not built by MaxMind resolve it too', () => {
    expect(normalizeIp('::ffff:8.8.8.8')).toMatchObject({
      ip: '8.8.8.8',
      family: 4,
      lookupIp: '8.8.8.8',
      lookupFamily: 4,
    });
    expect(normalizeIp('::ffff:0808:0808')).toMatchObject({ ip: '8.8.8.8', family: 4 });
  });

  it('does not let a private address through the IPv4-mapped form', () => {
    expect(refusal('::ffff:10.0.0.1').message).toBe('10.0.0.1 is in 10.0.0.0/8, private-use (RFC 1918)');
    expect(refusal('::ffff:7f00:1').message).toBe('127.0.0.1 is in 127.0.0.0/8, loopback (RFC 1122)');
    expect(refusal('::ffff:010.0.0.1').rule).toBe('ipv6_embedded_ipv4');
  });

  it('refuses zone ids', () => {
    expect(refusal('fe80::1%eth0').rule).toBe('zone_id');
  });
});

describe('normalizeIp', () => {
  it('returns the canonical address and what to look up', () => {
    expect(normalizeIp('8.8.8.8')).toEqual({
      ip: '8.8.8.8',
      family: 4,
      address: { family: 4, canonical: '8.8.8.8', value: 0x08080808 },
      lookupIp: '8.8.8.8',
      lookupFamily: 4,
      embedded: null,
    });
    expect(normalizeIp('2001:4860:4860:0:0:0:0:8888')).toMatchObject({
      ip: '2001:4860:4860::8888',
      family: 6,
      lookupIp: '2001:4860:4860::8888',
      lookupFamily: 6,
      embedded: null,
    });
  });

  it('throws the documented message for special-purpose addresses', () => {
    expect(() => normalizeIp('10.0.0.1')).toThrow('10.0.0.1 is in 10.0.0.0/8, private-use (RFC 1918)');
    const error = refusal('100.64.0.1');
    expect(error).toBeInstanceOf(ServiceError);
    expect(error.code).toBe('invalid_ip');
    expect(error.rule).toBe('special_purpose');
    expect(error.input).toBe('100.64.0.1');
    expect(error.classification).toMatchObject({
      block: '100.64.0.0/10',
      name: 'CGNAT shared address space',
      rfc: 'RFC 6598',
      reason: 'shared_address_space',
      via: null,
    });
    expect(refusal('FE80::1').message).toBe('fe80::1 is in fe80::/10, link-local (RFC 4291)');
    expect(refusal('239.1.2.3').classification?.reason).toBe('multicast');
  });

  it('refuses values that are not strings with a clear message', () => {
    for (const value of [123, null, undefined, ['8.8.8.8'], { ip: '8.8.8.8' }]) {
      const error = refusal(value);
      expect(error.rule).toBe('not_a_string');
      expect(error.message).toMatch(/ is not a valid IP address: an IP address must be a string$/);
    }
    expect(refusal(123).message).toBe('number is not a valid IP address: an IP address must be a string');
    expect(() => parseIp(42 as unknown as string)).toThrow(InvalidIpError);
  });
});

describe('the most specific block wins', () => {
  it('192.0.0.9/32 is globally reachable inside 192.0.0.0/24, which is not', () => {
    expect(classifyAddress(parseIp('192.0.0.9'))).toBeNull();
    expect(classifyAddress(parseIp('192.0.0.10'))).toBeNull();
    expect(classifyAddress(parseIp('192.0.0.11'))?.block).toBe('192.0.0.0/24');
    expect(classifyAddress(parseIp('192.0.0.8'))?.block).toBe('192.0.0.8/32');
  });

  it('2001:1::1/128 is globally reachable inside 2001::/23, which is not', () => {
    expect(classifyAddress(parseIp('2001:1::1'))).toBeNull();
    expect(classifyAddress(parseIp('2001:1::4'))?.block).toBe('2001::/23');
    expect(classifyAddress(parseIp('2001:4:112::1'))).toBeNull();
    expect(classifyAddress(parseIp('2001:4:113::1'))?.block).toBe('2001::/23');
  });

  it('192.88.99.2/32 (6a44) is not globally reachable either, but is named as itself', () => {
    expect(classifyAddress(parseIp('192.88.99.2'))?.name).toBe('6a44-relay anycast');
    expect(classifyAddress(parseIp('192.88.99.1'))?.name).toBe('deprecated 6to4 relay anycast');
  });
});

describe('tunnel addresses are judged and geolocated by their IPv4', () => {
  it('decodes 6to4 (bits 16-47)', () => {
    expect(embeddedIpv4(v6('2002:808:808::1'))).toMatchObject({
      kind: '6to4',
      ipv4: { canonical: '8.8.8.8' },
    });
    expect(normalizeIp('2002:5102:458e:1::1')).toMatchObject({
      ip: '2002:5102:458e:1::1',
      family: 6,
      lookupIp: '81.2.69.142',
      lookupFamily: 4,
      embedded: { kind: '6to4', entry: { cidr: '2002::/16' } },
    });
  });

  it('refuses 6to4 addresses of special-purpose IPv4 hosts', () => {
    const error = refusal('2002:c0a8:101::1');
    expect(error.message).toBe(
      '2002:c0a8:101::1 is in 2002::/16, 6to4 (RFC 3056), and its embedded IPv4 192.168.1.1 is in 192.168.0.0/16, private-use (RFC 1918)',
    );
    expect(error.classification).toMatchObject({
      block: '192.168.0.0/16',
      reason: 'private_use',
      via: {
        kind: '6to4',
        entry: { cidr: '2002::/16' },
        ipv4: { canonical: '192.168.1.1', value: 0xc0a80101 },
      },
    });
  });

  it('decodes Teredo (client IPv4 = last 32 bits inverted), using the RFC 4380 example', () => {
    // RFC 4380 §4: server 65.54.227.120, client 192.0.2.45 (a documentation address, hence refused).
    const example = v6('2001:0000:4136:e378:8000:63bf:3fff:fdd2');
    expect(embeddedIpv4(example)).toMatchObject({ kind: 'teredo', ipv4: { canonical: '192.0.2.45' } });
    expect(refusal('2001:0000:4136:e378:8000:63bf:3fff:fdd2').classification).toMatchObject({
      block: '192.0.2.0/24',
      via: { kind: 'teredo' },
    });
    // Client 81.2.69.142 → ~0x5102458e = 0xaefdba71.
    expect(normalizeIp('2001:0:4136:e378:8000:63bf:aefd:ba71')).toMatchObject({
      lookupIp: '81.2.69.142',
      embedded: { kind: 'teredo' },
    });
  });

  it('decodes the NAT64 well-known prefix (last 32 bits) and refuses non-global IPv4 inside it (RFC 6052 §3.1)', () => {
    expect(normalizeIp('64:ff9b::8.8.8.8')).toMatchObject({
      ip: '64:ff9b::808:808',
      lookupIp: '8.8.8.8',
      lookupFamily: 4,
      embedded: { kind: 'nat64' },
    });
    expect(refusal('64:ff9b::127.0.0.1').message).toBe(
      '64:ff9b::7f00:1 is in 64:ff9b::/96, NAT64 well-known prefix (RFC 6052), and its embedded IPv4 127.0.0.1 is in 127.0.0.0/8, loopback (RFC 1122)',
    );
    // The local-use prefix is not globally reachable at all.
    expect(refusal('64:ff9b:1::808:808').classification?.block).toBe('64:ff9b:1::/48');
  });

  it('leaves other addresses without an embedded IPv4', () => {
    expect(embeddedIpv4(v6('2001:4860:4860::8888'))).toBeNull();
    expect(embeddedIpv4(v6('::1.2.3.4'))).toBeNull();
  });
});

describe('checkIp', () => {
  it('reports success with the same fields as normalizeIp', () => {
    const { ok, ...rest } = checkIp('2002:808:808::1') as { ok: boolean };
    expect(ok).toBe(true);
    expect(rest).toEqual(normalizeIp('2002:808:808::1'));
  });

  it('reports syntax failures without throwing', () => {
    expect(checkIp('1.2.3.4 ')).toEqual({
      ok: false,
      input: '1.2.3.4 ',
      rule: 'whitespace',
      message: '"1.2.3.4 " is not a valid IP address: it contains whitespace',
      classification: null,
    });
    expect(checkIp(7 as unknown as string)).toMatchObject({ ok: false, rule: 'not_a_string', input: '7' });
  });

  it('reports special-purpose addresses with the block', () => {
    const result = checkIp('198.51.100.7');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.rule).toBe('special_purpose');
    expect(result.message).toBe('198.51.100.7 is in 198.51.100.0/24, TEST-NET-2 documentation (RFC 5737)');
    expect(result.classification?.reason).toBe('documentation');
  });

  it('gives the same messages as the throwing functions', () => {
    for (const input of ['', '1:2', '10.1.2.3', '2001:db8::1', '::ffff:1.2.3.04', '2002:a00:1::']) {
      const result = checkIp(input);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(() => normalizeIp(input)).toThrow(result.message);
    }
  });
});

describe('classificationMessage', () => {
  it('formats `<ip> is in <block>, <name> (<RFC>)`', () => {
    const classification = classifyAddress(parseIp('169.254.1.1'))!;
    expect(classificationMessage('169.254.1.1', classification)).toBe(
      '169.254.1.1 is in 169.254.0.0/16, link-local (RFC 3927)',
    );
  });
});

describe('isPublicIp', () => {
  it('accepts public unicast and refuses private, reserved and malformed input', async () => {
    const { isPublicIp } = await import('./is-public.js');
    expect(['8.8.8.8', '2001:4860:4860::8888', '192.0.0.9'].map(isPublicIp)).toEqual([true, true, true]);
    expect(
      ['10.0.0.1', '127.0.0.2', '::1', '169.254.1.1', 'fe80::1', '010.0.0.1', 'nope'].map(isPublicIp),
    ).toEqual(Array(7).fill(false));
  });
});
