import { BlockList } from 'node:net';
import { describe, expect, it } from 'vitest';
import { classifyAddress, isGloballyReachable } from './classify.js';
import { formatIpv6 } from './format.js';
import { checkIp, normalizeIp, parseIp } from './normalize.js';
import { readIpv6 } from './parse.js';
import { blockRange, lookupSpecialPurpose } from './special-purpose.js';
import { IPV4_SPECIAL_PURPOSE_BLOCKS, IPV6_SPECIAL_PURPOSE_BLOCKS } from './special-purpose-data.js';
import type { ParsedIp, ParsedIpv6, SpecialPurposeBlock } from './types.js';

const ALL = [...IPV4_SPECIAL_PURPOSE_BLOCKS, ...IPV6_SPECIAL_PURPOSE_BLOCKS];

// An independent oracle: node's BlockList (libuv address parsing) per block, most specific match wins.
const oracleLists = ALL.map((block) => {
  const [base = '', length = ''] = block.cidr.split('/');
  const list = new BlockList();
  list.addSubnet(base, Number(length), block.family === 4 ? 'ipv4' : 'ipv6');
  return { block, list, prefixLength: Number(length) };
});

function oracle(text: string, family: 4 | 6): SpecialPurposeBlock | null {
  let best: (typeof oracleLists)[number] | null = null;
  for (const candidate of oracleLists) {
    if (candidate.block.family !== family) continue;
    if (!candidate.list.check(text, family === 4 ? 'ipv4' : 'ipv6')) continue;
    if (!best || candidate.prefixLength > best.prefixLength) best = candidate;
  }
  return best?.block ?? null;
}

function text(value: bigint, family: 4 | 6): string {
  if (family === 4) return [24n, 16n, 8n, 0n].map((shift) => (value >> shift) & 255n).join('.');
  return Array.from({ length: 8 }, (_, index) =>
    ((value >> BigInt(112 - 16 * index)) & 0xffffn).toString(16),
  ).join(':');
}

// IPv6 without unwrapping ::ffff:a.b.c.d, so the IPv4-mapped block itself can be probed.
function rawAddress(value: bigint, family: 4 | 6): ParsedIp {
  if (family === 4) return parseIp(text(value, 4));
  const words = [0, 0, 0, 0, 0, 0, 0, 0];
  if (!readIpv6(text(value, 6), words)) throw new Error('unreadable');
  const parsed: ParsedIpv6 = { family: 6, canonical: formatIpv6(words), words };
  return parsed;
}

// What classifyAddress must answer for an address, derived from the oracle alone.
function expectedRejection(value: bigint, family: 4 | 6): SpecialPurposeBlock | null {
  const block = oracle(text(value, family), family);
  if (block === null) return null;
  if (block.embeds !== null) {
    const low = Number(value & 0xffffffffn);
    const embedded =
      block.embeds === '6to4'
        ? Number((value >> 80n) & 0xffffffffn)
        : block.embeds === 'teredo'
          ? ~low >>> 0
          : low;
    const inner = oracle(text(BigInt(embedded), 4), 4);
    return inner === null || isGloballyReachable(inner) ? null : inner;
  }
  return isGloballyReachable(block) ? null : block;
}

describe('special-purpose table', () => {
  it('lists every block once, with a valid CIDR, an RFC and a label', () => {
    const seen = new Set<string>();
    for (const block of ALL) {
      expect(() => blockRange(block), block.cidr).not.toThrow();
      expect(seen.has(block.cidr), block.cidr).toBe(false);
      seen.add(block.cidr);
      expect(block.rfc, block.cidr).toMatch(/^RFC \d+$/);
      expect(block.name.length, block.cidr).toBeGreaterThan(0);
      expect(block.family === 4 ? block.cidr.includes('.') : block.cidr.includes(':'), block.cidr).toBe(true);
    }
  });

  it('nests blocks properly: any two are disjoint or one contains the other', () => {
    const ranges = ALL.map(blockRange);
    for (const a of ranges) {
      for (const b of ranges) {
        if (a === b || a.block.family !== b.block.family) continue;
        const disjoint = a.end < b.start || b.end < a.start;
        const nested = (a.start <= b.start && b.end <= a.end) || (b.start <= a.start && a.end <= b.end);
        expect(disjoint || nested, `${a.block.cidr} vs ${b.block.cidr}`).toBe(true);
      }
    }
  });

  it('holds the registry flags', () => {
    const find = (cidr: string) => ALL.find((block) => block.cidr === cidr);
    expect(find('10.0.0.0/8')).toMatchObject({
      name: 'private-use',
      registryName: 'Private-Use',
      rfc: 'RFC 1918',
      source: true,
      destination: true,
      forwardable: true,
      globallyReachable: false,
      reservedByProtocol: false,
    });
    expect(find('127.0.0.0/8')).toMatchObject({ source: false, reservedByProtocol: true });
    expect(find('255.255.255.255/32')).toMatchObject({
      source: false,
      destination: true,
      reservedByProtocol: true,
    });
    expect(find('192.0.0.9/32')).toMatchObject({ globallyReachable: true, category: 'anycast' });
    expect(find('2001::/32')).toMatchObject({ globallyReachable: null, embeds: 'teredo' });
    expect(find('2002::/16')).toMatchObject({ globallyReachable: null, embeds: '6to4' });
    expect(find('64:ff9b::/96')).toMatchObject({ globallyReachable: true, embeds: 'nat64' });
    expect(find('192.88.99.0/24')).toMatchObject({ globallyReachable: null, terminated: '2015-03' });
    expect(find('224.0.0.0/4')).toMatchObject({ registry: 'ipv4-multicast', category: 'multicast' });
    expect(find('ff00::/8')).toMatchObject({ registry: 'ipv6-multicast', category: 'multicast' });
  });

  it('covers every block the IANA registries list', () => {
    const cidrs = new Set(ALL.map((block) => block.cidr));
    const required = [
      '0.0.0.0/8',
      '0.0.0.0/32',
      '10.0.0.0/8',
      '100.64.0.0/10',
      '127.0.0.0/8',
      '169.254.0.0/16',
      '172.16.0.0/12',
      '192.0.0.0/24',
      '192.0.0.0/29',
      '192.0.0.8/32',
      '192.0.0.9/32',
      '192.0.0.10/32',
      '192.0.0.170/32',
      '192.0.0.171/32',
      '192.0.2.0/24',
      '192.31.196.0/24',
      '192.52.193.0/24',
      '192.88.99.0/24',
      '192.88.99.2/32',
      '192.168.0.0/16',
      '192.175.48.0/24',
      '198.18.0.0/15',
      '198.51.100.0/24',
      '203.0.113.0/24',
      '240.0.0.0/4',
      '255.255.255.255/32',
      '224.0.0.0/4',
      '::1/128',
      '::/128',
      '::ffff:0:0/96',
      '64:ff9b::/96',
      '64:ff9b:1::/48',
      '100::/64',
      '100:0:0:1::/64',
      '2001::/23',
      '2001::/32',
      '2001:1::1/128',
      '2001:1::2/128',
      '2001:1::3/128',
      '2001:2::/48',
      '2001:3::/32',
      '2001:4:112::/48',
      '2001:10::/28',
      '2001:20::/28',
      '2001:30::/28',
      '2001:db8::/32',
      '2002::/16',
      '2620:4f:8000::/48',
      '3fff::/20',
      '5f00::/16',
      'fc00::/7',
      'fe80::/10',
      'ff00::/8',
    ];
    for (const cidr of required) expect(cidrs.has(cidr), cidr).toBe(true);
  });

  it('leaves global unicast (2000::/3) open except for its listed blocks, and closes the rest of IPv6', () => {
    const ranges = IPV6_SPECIAL_PURPOSE_BLOCKS.map(blockRange);
    const covered = (value: bigint) => ranges.some((range) => range.start <= value && value <= range.end);
    for (let top = 0; top < 0x10000; top += 0x100) {
      const value = BigInt(top) << 112n;
      const inGlobalUnicast = top >= 0x2000 && top < 0x4000;
      if (!inGlobalUnicast) expect(covered(value), top.toString(16)).toBe(true);
    }
    expect(covered(0x2a00n << 112n)).toBe(false);
    expect(covered(0x3ffen << 112n)).toBe(false);
  });
});

describe('the first and last address of every block, and the addresses just outside', () => {
  const cases = ALL.map((block) => [block.cidr, block] as const);

  it.each(cases)('%s', (_cidr, block) => {
    const { start, end } = blockRange(block);
    const bits = block.family === 4 ? 32n : 128n;
    for (const value of [start, end]) {
      const address = rawAddress(value, block.family);
      const owner = oracle(text(value, block.family), block.family);
      // The edge belongs to this block or to a more specific one nested inside it.
      expect(owner, text(value, block.family)).not.toBeNull();
      if (owner !== block)
        expect(blockRange(owner!).prefixLength).toBeGreaterThan(blockRange(block).prefixLength);
      expect(lookupSpecialPurpose(address)).toBe(owner);
      const expected = expectedRejection(value, block.family);
      const classification = classifyAddress(address);
      expect(classification?.entry ?? null, address.canonical).toBe(expected);
      if (classification !== null) {
        expect(classification.block).toBe(expected?.cidr);
        expect(classification.name).toBe(expected?.name);
        expect(classification.rfc).toBe(expected?.rfc);
      }
      // The edges of blocks that are not globally reachable are always refused.
      if (owner === block && !isGloballyReachable(block) && block.embeds === null) {
        expect(classification?.entry).toBe(block);
      }
    }
    for (const value of [start - 1n, end + 1n]) {
      if (value < 0n || value >= 1n << bits) continue;
      const neighbour = text(value, block.family);
      const owner = oracle(neighbour, block.family);
      expect(owner, neighbour).not.toBe(block);
      const address = rawAddress(value, block.family);
      expect(lookupSpecialPurpose(address), neighbour).toBe(owner);
      expect(classifyAddress(address)?.entry ?? null, neighbour).toBe(expectedRejection(value, block.family));
      if (owner === null) {
        const check = checkIp(neighbour);
        expect(check.ok, neighbour).toBe(true);
        expect(() => normalizeIp(neighbour)).not.toThrow();
      }
    }
  });
});

describe('hand-checked edges', () => {
  it.each([
    ['0.0.0.0', '0.0.0.0/32'],
    ['0.0.0.1', '0.0.0.0/8'],
    ['0.255.255.255', '0.0.0.0/8'],
    ['10.0.0.0', '10.0.0.0/8'],
    ['10.255.255.255', '10.0.0.0/8'],
    ['100.64.0.0', '100.64.0.0/10'],
    ['100.127.255.255', '100.64.0.0/10'],
    ['127.0.0.1', '127.0.0.0/8'],
    ['169.254.0.0', '169.254.0.0/16'],
    ['169.254.255.255', '169.254.0.0/16'],
    ['172.16.0.0', '172.16.0.0/12'],
    ['172.31.255.255', '172.16.0.0/12'],
    ['192.0.0.0', '192.0.0.0/29'],
    ['192.0.0.7', '192.0.0.0/29'],
    ['192.0.0.8', '192.0.0.8/32'],
    ['192.0.0.11', '192.0.0.0/24'],
    ['192.0.0.170', '192.0.0.170/32'],
    ['192.0.0.255', '192.0.0.0/24'],
    ['192.0.2.0', '192.0.2.0/24'],
    ['192.0.2.255', '192.0.2.0/24'],
    ['192.88.99.0', '192.88.99.0/24'],
    ['192.88.99.2', '192.88.99.2/32'],
    ['192.88.99.255', '192.88.99.0/24'],
    ['192.168.0.0', '192.168.0.0/16'],
    ['192.168.255.255', '192.168.0.0/16'],
    ['198.18.0.0', '198.18.0.0/15'],
    ['198.19.255.255', '198.18.0.0/15'],
    ['198.51.100.0', '198.51.100.0/24'],
    ['203.0.113.255', '203.0.113.0/24'],
    ['224.0.0.0', '224.0.0.0/4'],
    ['239.255.255.255', '224.0.0.0/4'],
    ['240.0.0.0', '240.0.0.0/4'],
    ['255.255.255.254', '240.0.0.0/4'],
    ['255.255.255.255', '255.255.255.255/32'],
    ['::', '::/128'],
    ['::1', '::1/128'],
    ['::2', '::/8'],
    ['::1.2.3.4', '::/8'],
    ['64:ff9b:1::', '64:ff9b:1::/48'],
    ['64:ff9b:1:ffff:ffff:ffff:ffff:ffff', '64:ff9b:1::/48'],
    ['100::', '100::/64'],
    ['100::ffff:ffff:ffff:ffff', '100::/64'],
    ['100:0:0:1::', '100:0:0:1::/64'],
    ['100:0:0:2::', '100::/8'],
    ['2001:1::', '2001::/23'],
    ['2001:1::4', '2001::/23'],
    ['2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff', '2001::/23'],
    ['2001:2::', '2001:2::/48'],
    ['2001:2:0:ffff:ffff:ffff:ffff:ffff', '2001:2::/48'],
    ['2001:10::', '2001:10::/28'],
    ['2001:1f:ffff:ffff:ffff:ffff:ffff:ffff', '2001:10::/28'],
    ['2001:db8::', '2001:db8::/32'],
    ['2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', '2001:db8::/32'],
    ['3fff::', '3fff::/20'],
    ['3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff', '3fff::/20'],
    ['5f00::', '5f00::/16'],
    ['fc00::', 'fc00::/7'],
    ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'fc00::/7'],
    ['fe80::', 'fe80::/10'],
    ['febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'fe80::/10'],
    ['fec0::1', 'fec0::/10'],
    ['ff02::1', 'ff00::/8'],
    ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'ff00::/8'],
    ['4000::', '4000::/3'],
    ['1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '1000::/4'],
  ])('%s is refused by %s', (input, cidr) => {
    const error = (() => {
      try {
        normalizeIp(input);
      } catch (caught) {
        return caught as Error & { code: string };
      }
      throw new Error(`${input} was accepted`);
    })();
    expect(error.code).toBe('invalid_ip');
    const block = ALL.find((entry) => entry.cidr === cidr)!;
    expect(error.message).toBe(`${parseIp(input).canonical} is in ${cidr}, ${block.name} (${block.rfc})`);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '81.2.69.142',
    '9.255.255.255',
    '11.0.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '126.255.255.255',
    '128.0.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.0.1.255',
    '192.0.3.0',
    '192.167.255.255',
    '192.169.0.0',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255',
    // Globally reachable special-purpose blocks (anycast services) are real, routed addresses.
    '192.0.0.9',
    '192.0.0.10',
    '192.31.196.1',
    '192.52.193.1',
    '192.175.48.6',
    '2001:4860:4860::8888',
    '2a02:2e0:3fe:1001:7777:772e:2:85',
    '2000::',
    '2001:200::',
    '2001:db7:ffff:ffff:ffff:ffff:ffff:ffff',
    '2001:db9::',
    '2001:1::1',
    '2001:1::2',
    '2001:1::3',
    '2001:3::1',
    '2001:4:112::1',
    '2001:20::1',
    '2001:30::1',
    '2620:4f:8000::6',
    '3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
    '3fff:1000::',
    '3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
  ])('%s passes', (input) => {
    expect(normalizeIp(input).ip).toBe(parseIp(input).canonical);
  });
});
