import { describe, expect, it } from 'vitest';
import type { FieldLayout } from './backend.js';
import { DERIVED_CONTINENT, DERIVED_COUNTRY_NAME, DERIVED_TIMEZONE, SourcesMemo } from './sources-memo.js';

const layout = (id: number, ...fields: FieldLayout['fields']): FieldLayout => ({ id, fields });
// Tree lookups list the network last: every such answer has one.
const city = layout(1, 'country', 'city', 'latitude', 'longitude', 'asn', 'network');
const asn = layout(2, 'asn', 'org', 'network');

describe('sources memo', () => {
  it('gives each field (the network too) to the first backend with it, then derived fields', () => {
    const memo = new SourcesMemo(['city', 'asn']);
    const sources = memo.get([city, asn], DERIVED_COUNTRY_NAME | DERIVED_TIMEZONE);
    expect(sources).toEqual({
      country: 'city',
      city: 'city',
      latitude: 'city',
      longitude: 'city',
      asn: 'city',
      network: 'city',
      org: 'asn',
      country_name: 'derived',
      timezone: 'derived',
    });
    expect(Object.keys(sources)).toEqual([
      'country',
      'city',
      'latitude',
      'longitude',
      'asn',
      'network',
      'org',
      'country_name',
      'timezone',
    ]);
    expect(Object.isFrozen(sources)).toBe(true);
    expect(memo.get([null, asn], DERIVED_CONTINENT)).toEqual({
      asn: 'asn',
      org: 'asn',
      network: 'asn',
      continent: 'derived',
    });
    expect(memo.get([null, null], 0)).toEqual({});
  });

  it('leaves the network to a later backend when the first answer has none (a lookup-only backend)', () => {
    const flags = layout(3, 'is_vpn');
    const memo = new SourcesMemo(['lists', 'asn']);
    expect(Object.entries(memo.get([flags, asn], 0))).toEqual([
      ['is_vpn', 'lists'],
      ['asn', 'asn'],
      ['org', 'asn'],
      ['network', 'asn'],
    ]);
  });

  it('shares one object per combination and tells combinations apart', () => {
    const memo = new SourcesMemo(['city', 'asn']);
    expect(memo.get([city, asn], 0)).toBe(memo.get([city, asn], 0));
    expect(memo.get([city, asn], DERIVED_TIMEZONE)).not.toBe(memo.get([city, asn], 0));
    expect(memo.get([asn, city], 0)).toEqual({
      asn: 'city',
      org: 'city',
      network: 'city',
      country: 'asn',
      city: 'asn',
      latitude: 'asn',
      longitude: 'asn',
    });
  });

  it('stays correct past its bound and for layouts without an id', () => {
    const memo = new SourcesMemo(['city', 'asn'], 2);
    const expected = new SourcesMemo(['city', 'asn']);
    for (let round = 0; round < 3; round++) {
      for (const derived of [0, 1, 2, 3, 4, 5, 6, 7]) {
        expect(memo.get([city, asn], derived)).toEqual(expected.get([city, asn], derived));
      }
    }
    const unshared = layout(-1, 'org', 'asn', 'network');
    expect(Object.keys(memo.get([unshared, city], 0))).toEqual([
      'org',
      'asn',
      'network',
      'country',
      'city',
      'latitude',
      'longitude',
    ]);
  });
});
