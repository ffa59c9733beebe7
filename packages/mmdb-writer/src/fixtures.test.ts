import { readFileSync } from 'node:fs';
import { Reader } from 'maxmind';
import { afterAll, describe, expect, it } from 'vitest';
import { formatAddress, parseNetwork } from './cidr.js';
import { createMmdbWriter, type MmdbValue, type MmdbWriterOptions, mmdbTypes } from './index.js';
import { FIXTURES_DIR, readFixture } from './testing/fixtures.js';
import { mmdblookup, noMmdblookup, tempDir } from './testing/mmdblookup.js';

type SourceEntry = Record<string, MmdbValue>;

function loadSource(name: string): [string, MmdbValue][] {
  const entries = JSON.parse(
    readFileSync(`${FIXTURES_DIR}source-data/${name}.json`, 'utf8'),
  ) as SourceEntry[];
  return entries.map((entry) => {
    const pairs = Object.entries(entry);
    expect(pairs).toHaveLength(1);
    return pairs[0]!;
  });
}

/** Our writer fed the official JSON, with the metadata copied from the official file. */
function rebuild(official: Reader<never>, source: [string, MmdbValue][], map = (v: MmdbValue) => v): Buffer {
  const meta = official.metadata;
  const options: MmdbWriterOptions = {
    databaseType: meta.databaseType,
    ipVersion: meta.ipVersion as 4 | 6,
    recordSize: meta.recordSize as 24 | 28 | 32,
    languages: meta.languages,
    // The reader's typings call it a string; at run time it is the decoded map.
    description: meta.description as unknown as Record<string, string>,
    buildEpoch: meta.buildEpoch,
  };
  const writer = createMmdbWriter(options);
  for (const [network, record] of source) writer.insert(network, map(record));
  return writer.toBuffer();
}

function add(bytes: Uint8Array, delta: 1 | -1): Uint8Array | undefined {
  const out = new Uint8Array(bytes);
  for (let i = out.length - 1; i >= 0; i--) {
    const next = out[i]! + delta;
    out[i] = next & 0xff;
    if (next >= 0 && next <= 0xff) return out;
  }
  return undefined; // wrapped around the address space
}

/**
 * Addresses to compare for one network: its first and last address, the neighbours just
 * outside it, and for IPv4 data the plain, IPv4-mapped and 6to4 spellings of each.
 */
function probes(network: string): string[] {
  const parsed = parseNetwork(network);
  const first = new Uint8Array(16);
  first.set(parsed.bytes, parsed.family === 4 ? 12 : 0);
  const prefix = parsed.prefixLength + (parsed.family === 4 ? 96 : 0);
  const last = new Uint8Array(first);
  for (let bit = prefix; bit < 128; bit++) last[bit >> 3]! |= 1 << (7 - (bit & 7));
  const out: string[] = [];
  for (const address of [first, last, add(first, -1), add(last, 1)]) {
    if (address === undefined) continue;
    out.push(formatAddress(address));
    if (address.subarray(0, 12).every((b) => b === 0)) {
      const v4 = address.subarray(12);
      out.push(
        formatAddress(v4),
        `::ffff:${formatAddress(v4)}`,
        `2002:${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}::`,
      );
    }
  }
  return out;
}

const temp = tempDir();
afterAll(() => temp.cleanup());

describe.each(['GeoIP2-City-Test', 'GeoLite2-ASN-Test'])('%s rebuilt from source-data', (name) => {
  const official = new Reader<never>(readFixture(`test-data/${name}.mmdb`));
  const source = loadSource(name);
  const ours = new Reader<never>(rebuild(official, source));

  it('has the official metadata', () => {
    const { nodeCount, searchTreeSize, nodeByteSize, ...theirs } = official.metadata;
    const { nodeCount: n, searchTreeSize: s, nodeByteSize: b, ...mine } = ours.metadata;
    expect(mine).toEqual(theirs);
    expect(n).toBeGreaterThan(0);
  });

  it('answers every network like the official file (first/last address, neighbours, aliases)', () => {
    let compared = 0;
    for (const [network] of source) {
      for (const ip of probes(network)) {
        expect(ours.get(ip), `${network} at ${ip}`).toEqual(official.get(ip));
        compared++;
      }
    }
    expect(compared).toBeGreaterThanOrEqual(source.length * 4);
  });

  it('finds data for every network it was given, with the official prefix length', () => {
    for (const [network, record] of source) {
      const ip = probes(network)[0]!;
      const [found, prefixLength] = ours.getWithPrefixLength(ip);
      expect(found, network).toEqual(record);
      expect(prefixLength, network).toBe(official.getWithPrefixLength(ip)[1]);
    }
  });
});

describe('GeoLite2-ASN-Test with explicit types', () => {
  const official = new Reader<never>(readFixture('test-data/GeoLite2-ASN-Test.mmdb'));
  const source = loadSource('GeoLite2-ASN-Test');
  // The official file stores autonomous_system_number as uint32; the default mapping would
  // pick uint16 for small numbers, so pin the type to get byte-identical values.
  const typed = (record: MmdbValue): MmdbValue => {
    const { autonomous_system_number: asn, ...rest } = record as Record<string, MmdbValue>;
    return { autonomous_system_number: mmdbTypes.uint32(asn as number), ...rest };
  };
  const oursFile = temp.write('asn-typed.mmdb', rebuild(official, source, typed));
  const officialFile = `${FIXTURES_DIR}test-data/GeoLite2-ASN-Test.mmdb`;

  it.skipIf(noMmdblookup)('prints the same values and types in mmdblookup as the official file', async () => {
    // Every 12th network keeps the number of processes spawned small.
    const sample = source.filter((_, i) => i % 12 === 0);
    expect(sample.length).toBeGreaterThan(50);
    for (const [network] of sample) {
      const ip = probes(network)[0]!;
      const theirs = await mmdblookup(officialFile, ip);
      expect(theirs, network).not.toBeNull();
      expect(await mmdblookup(oursFile, ip), network).toEqual(theirs);
    }
  });
});
