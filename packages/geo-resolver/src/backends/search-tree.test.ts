import { readdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { formatIpv4, formatIpv6 } from '@svc/ip-address';
import { createMmdbWriter } from '@svc/mmdb-writer';
import { Reader } from 'maxmind';
import { describe, expect, it } from 'vitest';
import { testDatabase } from '../testing/fixtures.js';
import { randomIpv4, randomIpv6, randomNetwork, seeded } from '../testing/random.js';
import { recordReader } from './mmdb-verify.js';
import { SearchTree } from './search-tree.js';

type Probe = { family: 4; value: number } | { family: 6; words: number[] };

// The reader's own walk, the reference: [pointer or null, depth]. Private in its typings.
type TreeReader = { findAddressInTree(ip: string): [number | null, number] };

const text = (probe: Probe) => (probe.family === 4 ? formatIpv4(probe.value) : formatIpv6(probe.words));

/**
 * Addresses worth asking: the first, last and a middle address of networks that hold data (found
 * with the verifier's record reader, not the code under test), and random ones.
 */
function probesFor(bytes: Buffer, reader: Reader<Record<string, unknown>>, random: () => number): Probe[] {
  const { nodeCount, recordSize, ipVersion } = reader.metadata;
  const read = recordReader(bytes, recordSize);
  const nodeBytes = recordSize / 4;
  const bits = ipVersion === 6 ? 128 : 32;
  const probes: Probe[] = [];
  const toProbe = (value: bigint): Probe => {
    if (bits === 32) return { family: 4, value: Number(value) };
    return {
      family: 6,
      words: Array.from({ length: 8 }, (_, index) => Number((value >> BigInt(112 - 16 * index)) & 0xffffn)),
    };
  };
  const stack: Array<[node: number, depth: number, prefix: bigint]> = [[0, 0, 0n]];
  while (stack.length > 0 && probes.length < 3000) {
    const [node, depth, prefix] = stack.pop() as [number, number, bigint];
    for (const side of [0, 1] as const) {
      const record = read(node * nodeBytes, side);
      const path = prefix * 2n + BigInt(side);
      if (record < nodeCount) stack.push([record, depth + 1, path]);
      else if (record > nodeCount) {
        const size = 1n << BigInt(bits - depth - 1);
        const start = path * size;
        probes.push(toProbe(start), toProbe(start + size - 1n), toProbe(start + size / 2n));
      }
    }
  }
  for (let index = 0; index < 1000; index++) {
    probes.push({ family: 4, value: randomIpv4(random) });
    probes.push({ family: 6, words: randomIpv6(random) });
  }
  return probes;
}

/** Asks the tree and the reader the same question; IPv4 through the reader's IPv4 walk. */
function expectSameAnswers(bytes: Buffer, label: string) {
  const reader = new Reader<Record<string, unknown>>(bytes);
  const tree = new SearchTree(bytes, reader.metadata);
  const probes = probesFor(bytes, reader, seeded(7));
  let found = 0;
  let foundFromData = 0;
  for (const [index, probe] of probes.entries()) {
    const pointer = probe.family === 4 ? tree.findIpv4(probe.value) : tree.findIpv6(probe.words);
    if (probe.family === 6 && reader.metadata.ipVersion === 4) {
      // Where the reader would answer for the first 32 bits, the tree answers nothing.
      expect(pointer, `${label} ${text(probe)}`).toBe(0);
      continue;
    }
    const [expected, depth] = (reader as unknown as TreeReader).findAddressInTree(text(probe));
    expect([pointer, tree.prefixLength], `${label} ${text(probe)}`).toEqual([expected ?? 0, depth]);
    if (pointer !== 0) found++;
    if (pointer !== 0 && index < probes.length - 2000) foundFromData++;
  }
  // The probes must reach data, or the comparison says little.
  expect(foundFromData, label).toBeGreaterThan(0);
  return found;
}

describe('search tree walk with parsed addresses', () => {
  it('finds what the maxmind reader finds in every well-formed MaxMind test database', () => {
    const directory = dirname(testDatabase('x'));
    const files = readdirSync(directory).filter(
      (file) => file.endsWith('.mmdb') && !/broken|invalid/i.test(file),
    );
    expect(files.length).toBeGreaterThan(25);
    const versions = new Set<number>();
    for (const file of files) {
      const bytes = readFileSync(testDatabase(file));
      versions.add(new Reader(bytes).metadata.ipVersion);
      expectSameAnswers(bytes, file);
    }
    // Both kinds of tree were among them.
    expect([...versions].sort()).toEqual([4, 6]);
  });

  it.each([
    [4, 24],
    [4, 28],
    [4, 32],
    [6, 24],
    [6, 28],
    [6, 32],
  ] as const)('agrees with the reader on a dense IPv%i file with %i-bit records', (ipVersion, recordSize) => {
    const random = seeded(ipVersion * 100 + recordSize);
    const writer = createMmdbWriter({ databaseType: 'Test-Dense', ipVersion, recordSize });
    // Nested and neighbouring networks at every depth, so walks stop above, at and below the
    // 16 bits the tree resolves in one step.
    for (let index = 0; index < 1500; index++) {
      const prefixLength = 1 + Math.floor(random() * 32);
      writer.insert(randomNetwork(random, 4, prefixLength), `v4-${index}`);
    }
    if (ipVersion === 6) {
      for (let index = 0; index < 1500; index++) {
        const prefixLength = 4 + Math.floor(random() * 60);
        // 2400::/6 and up: clear of the IPv4 aliases (::ffff:0:0/96, 2002::/16).
        const first = 0x2400 + Math.floor(random() * 0xdbff);
        writer.insert(randomNetwork(random, 6, Math.max(prefixLength, 6), first), `v6-${index}`);
      }
    }
    expect(expectSameAnswers(writer.toBuffer(), `IPv${ipVersion}/${recordSize}`)).toBeGreaterThan(1000);
  });

  it('answers IPv4 in an IPv6 tree from ::a.b.c.d, and ::ffff:a.b.c.d through the alias, as the reader does', () => {
    const bytes = readFileSync(testDatabase('GeoIP2-City-Test.mmdb'));
    const reader = new Reader<Record<string, unknown>>(bytes);
    const tree = new SearchTree(bytes, reader.metadata);
    const london = tree.findIpv4(0x51_02_45_8e); // 81.2.69.142
    expect(london).not.toBe(0);
    expect(tree.prefixLength).toBe(31);
    // Same record through the IPv4-mapped alias, reached by the IPv6 walk.
    expect(tree.findIpv6([0, 0, 0, 0, 0, 0xffff, 0x5102, 0x458e])).toBe(london);
    expect(tree.prefixLength).toBe(127);
    expect((reader as unknown as TreeReader).findAddressInTree('::ffff:81.2.69.142')).toEqual([london, 127]);
  });

  it.each([
    // left 0x0abcdef1, right 0x02345678: the shared middle byte holds 0xa (left) and 0x2 (right).
    [28, 'bcdef1 a2 345678', 0x0abcdef1, 0x02345678],
    [28, 'ffffff ff ffffff', 0x0fffffff, 0x0fffffff],
    [24, 'abcdef 123456', 0xabcdef, 0x123456],
    [32, 'fedcba98 01234567', 0xfedcba98, 0x01234567],
  ])('reads %i-bit records up to their top bits (%s)', (recordSize, hex, left, right) => {
    const node = Buffer.from(hex.replaceAll(' ', ''), 'hex');
    // Node 1 of a two-node tree, so offsets are exercised too; the 16-byte separator follows.
    const bytes = Buffer.concat([Buffer.alloc(node.length), node, Buffer.alloc(16)]);
    const tree = new SearchTree(bytes, { nodeCount: 2, recordSize, ipVersion: 4 });
    expect([tree.child(1, 0), tree.child(1, 1)]).toEqual([left, right]);
    const independent = recordReader(bytes, recordSize);
    expect([independent(node.length, 0), independent(node.length, 1)]).toEqual([left, right]);
  });

  it('refuses record sizes the format does not have', () => {
    expect(() => new SearchTree(Buffer.alloc(64), { nodeCount: 1, recordSize: 20, ipVersion: 4 })).toThrow(
      'record size 20',
    );
  });
});
