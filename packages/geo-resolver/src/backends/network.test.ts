import { formatIpv4, formatIpv6, parseIp } from '@svc/ip-address';
import { describe, expect, it } from 'vitest';
import { randomIpv4, randomIpv6, seeded } from '../testing/random.js';
import { formatNetwork, ipv4Mapped } from './network.js';

// The reference: clear the host bits of the address as one big integer.
function reference(words: number[], prefixLength: number): string {
  const value = words.reduce((sum, word) => (sum << 16n) | BigInt(word), 0n);
  const host = (1n << BigInt(128 - prefixLength)) - 1n;
  const base = value & ~host;
  const masked = Array.from({ length: 8 }, (_, index) =>
    Number((base >> BigInt(112 - 16 * index)) & 0xffffn),
  );
  return `${formatIpv6(masked)}/${prefixLength}`;
}

describe('formatNetwork', () => {
  it('clears the host bits of IPv4 addresses at every prefix length', () => {
    const random = seeded(3);
    for (let round = 0; round < 200; round++) {
      const value = randomIpv4(random);
      const prefixLength = round % 33;
      const base =
        prefixLength === 0
          ? 0
          : Number(BigInt(value) & (((1n << BigInt(prefixLength)) - 1n) << BigInt(32 - prefixLength)));
      expect(formatNetwork(parseIp(formatIpv4(value)), prefixLength)).toBe(
        `${formatIpv4(base)}/${prefixLength}`,
      );
    }
    expect(formatNetwork(parseIp('81.2.69.142'), 31)).toBe('81.2.69.142/31');
    expect(formatNetwork(parseIp('81.2.69.143'), 31)).toBe('81.2.69.142/31');
  });

  it('clears the host bits of IPv6 addresses at every prefix length', () => {
    const random = seeded(4);
    for (let round = 0; round < 400; round++) {
      const words = randomIpv6(random, 0x2000 + round);
      const prefixLength = round % 129;
      const address = parseIp(formatIpv6(words));
      expect(formatNetwork(address, prefixLength)).toBe(reference(words, prefixLength));
    }
    expect(formatNetwork(parseIp('2001:218::1'), 32)).toBe('2001:218::/32');
  });

  it('writes an IPv4 address as ::ffff:a.b.c.d words', () => {
    const address = parseIp('81.2.69.142');
    if (address.family !== 4) throw new Error('expected IPv4');
    const mapped = ipv4Mapped(address);
    expect(mapped.words).toEqual([0, 0, 0, 0, 0, 0xffff, 0x5102, 0x458e]);
    expect(formatNetwork(mapped, 120)).toBe('::ffff:5102:4500/120');
  });
});
