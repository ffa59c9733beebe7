import { readFileSync } from 'node:fs';
import { parseIp } from '@svc/ip-address';
import { Reader } from 'maxmind';
import { describe, expect, it } from 'vitest';
import type { GeoPartial, MatchedNetwork } from '../backend.js';
import { sourceRecords, testDatabase } from '../testing/fixtures.js';
import { mappedRecords } from './mapped-records.js';
import { openMmdbBackend } from './mmdb.js';
import { maxmindCitySchema } from './mmdb-schemas.js';
import { SearchTree } from './search-tree.js';
import { shareAnswer, wrapAnswer } from './shared-answer.js';

type DataReader = { resolveDataPointer(pointer: number): Record<string, unknown> };

describe('mapped records (decode cache per data pointer)', () => {
  it('answers a cache hit with the same frozen answer, equal to mapping the decoded record', async () => {
    const backend = await openMmdbBackend({ source: testDatabase('GeoIP2-City-Test.mmdb') });
    const reader = new Reader<Record<string, unknown>>(readFileSync(testDatabase('GeoIP2-City-Test.mmdb')));
    const match: MatchedNetwork = { prefixLength: -1 };
    // 81.2.69.142/31: both addresses lead to one record.
    const first = backend.lookupAddress?.(parseIp('81.2.69.142'), match);
    expect(match.prefixLength).toBe(31);
    const second = backend.lookupAddress?.(parseIp('81.2.69.143'), match);
    expect(second).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first?.fields)).toBe(true);
    expect(Object.isFrozen(first?.layout.fields)).toBe(true);
    expect(first?.fields).toEqual(
      maxmindCitySchema.map(reader.get('81.2.69.142') as Record<string, unknown>),
    );
    expect(() => {
      (first?.fields as { city: string }).city = 'Paris';
    }).toThrow(TypeError);
    // The public lookup hands out a copy with the network, which the caller may change.
    const copy = backend.lookup('81.2.69.142', 4) as Record<string, unknown>;
    expect(copy).toEqual({ ...first?.fields, network: '81.2.69.142/31' });
    copy.city = 'Paris';
    expect(backend.lookup('81.2.69.143', 4)?.city).toBe('London');
  });

  it('stays correct when records compete for few slots (evictions decode again)', () => {
    const bytes = readFileSync(testDatabase('GeoIP2-City-Test.mmdb'));
    const reader = new Reader<Record<string, unknown>>(bytes);
    const tree = new SearchTree(bytes, reader.metadata);
    // Four slots for every record of the file.
    const records = mappedRecords(reader, maxmindCitySchema, 2);
    const pointers = new Set<number>();
    for (const [network] of sourceRecords('GeoIP2-City-Test.json')) {
      const address = parseIp((network.split('/')[0] as string).replace(/^::(\d+\.)/, '$1'));
      const pointer = address.family === 4 ? tree.findIpv4(address.value) : tree.findIpv6(address.words);
      if (pointer !== 0) pointers.add(pointer);
    }
    expect(pointers.size).toBeGreaterThan(20);
    for (let round = 0; round < 3; round++) {
      for (const pointer of pointers) {
        const decoded = (reader as unknown as DataReader).resolveDataPointer(pointer);
        const answer = records(pointer);
        expect(answer.fields).toEqual(shareAnswer(maxmindCitySchema.map(decoded)).fields);
        expect(Object.isFrozen(answer.fields)).toBe(true);
      }
    }
  });
});

describe('shared answers', () => {
  it('list the fields with a value in key order, then the network, one layout object per list', () => {
    const a = shareAnswer({ country: 'SE', city: null, latitude: 59.3, asn: undefined });
    const b = shareAnswer({ country: 'DE', city: null, latitude: 52.5 });
    const reordered = shareAnswer({ latitude: 1, country: 'FR' });
    expect(a.layout.fields).toEqual(['country', 'latitude', 'network']);
    expect(b.layout).toBe(a.layout);
    expect(reordered.layout.fields).toEqual(['latitude', 'country', 'network']);
    expect(reordered.layout).not.toBe(a.layout);
    expect(reordered.layout.id).not.toBe(a.layout.id);
    expect(a.layout.id).toBeGreaterThan(0);
  });

  it('drop a network from the mapped fields: the matched one is reported', () => {
    const answer = shareAnswer({ asn: 64500, network: '0.0.0.0/0' });
    expect(answer.fields).toEqual({ asn: 64500 });
    expect(answer.layout.fields).toEqual(['asn', 'network']);
  });

  it('wrap a lookup-only answer as it is: its network (if any) in place, keys that are not fields left out', () => {
    const flagged = wrapAnswer({ is_vpn: true, hint: 'x' } as GeoPartial);
    expect(flagged.layout.fields).toEqual(['is_vpn']);
    const located = wrapAnswer({ network: '192.0.2.0/24', city: 'Oslo', country: null });
    expect(located.fields.network).toBe('192.0.2.0/24');
    expect(located.layout.fields).toEqual(['network', 'city']);
  });
});
