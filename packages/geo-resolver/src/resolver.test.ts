import { ServiceError } from '@svc/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GeoBackend } from './backend.js';
import { openMmdbBackend } from './backends/mmdb.js';
import { createGeoResolver, type GeoResolver } from './resolver.js';
import { type CitySourceRecord, sourceRecords, testDatabase } from './testing/fixtures.js';

const cityRecord = (cidr: string) =>
  sourceRecords('GeoIP2-City-Test.json').find(
    ([network]) => network === cidr,
  )?.[1] as unknown as CitySourceRecord;

describe('geo resolver on MaxMind test databases (City + ASN + Anonymous-IP)', () => {
  let resolver: GeoResolver;
  beforeAll(async () => {
    resolver = await createGeoResolver({
      backends: [
        await openMmdbBackend({ source: testDatabase('GeoIP2-City-Test.mmdb') }),
        await openMmdbBackend({ source: testDatabase('GeoLite2-ASN-Test.mmdb') }),
        await openMmdbBackend({ source: testDatabase('GeoIP2-Anonymous-IP-Test.mmdb') }),
      ],
    });
  });
  afterAll(() => resolver.close());

  it('answers 81.2.69.142 with London from City and every proxy flag from Anonymous-IP', () => {
    const source = cityRecord('::81.2.69.142/127');
    const result = resolver.lookup('81.2.69.142');
    expect(result).toMatchObject({
      ip: '81.2.69.142',
      continent: 'EU',
      country: 'GB',
      country_name: source.country.names.en,
      city: 'London',
      region: source.subdivisions[0].names.en,
      latitude: source.location.latitude,
      longitude: source.location.longitude,
      timezone: 'Europe/London',
      is_proxy: true,
      is_vpn: true,
      is_hosting: true,
      is_tor: true,
    });
    expect(result.sources).toMatchObject({ city: 'geoip2-city', is_vpn: 'geoip2-anonymous-ip' });
  });

  it('answers 1.128.0.0 with ASN 1221 and no location', () => {
    expect(resolver.lookup('1.128.0.0')).toMatchObject({
      asn: 1221,
      org: 'Telstra Pty Ltd',
      country: null,
      city: null,
      latitude: null,
      is_proxy: false,
      is_vpn: false,
    });
  });

  it('answers 2001:218::1 with Japan and Asia/Tokyo', () => {
    expect(resolver.lookup('2001:218::1')).toMatchObject({
      country: 'JP',
      country_name: 'Japan',
      timezone: 'Asia/Tokyo',
      continent: 'AS',
    });
  });

  it('unwraps ::ffff:81.2.69.142 to the IPv4 answer, also from files MaxMind did not build', () => {
    expect(resolver.lookup('::ffff:81.2.69.142')).toMatchObject({ ip: '81.2.69.142', city: 'London' });
  });

  it('returns frozen results, the same object for repeated lookups, never a shared mutable one', () => {
    const first = resolver.lookup('81.2.69.142');
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first.sources)).toBe(true);
    expect(resolver.lookup('81.2.69.142')).toBe(first);
    expect(() => {
      (first as { city: string | null }).city = 'Paris';
    }).toThrow(TypeError);
  });

  it.each([
    ['10.0.0.1', '10.0.0.1 is in 10.0.0.0/8, private-use (RFC 1918)'],
    ['081.2.69.142', 'IPv4 parts must be decimal without leading zeros'],
    ['81.2.69', 'is not a valid IP address'],
    [' 8.8.8.8', 'is not a valid IP address'],
    ['8.8.8.8/24', 'is not a valid IP address'],
    ['010.0.0.1', 'IPv4 parts must be decimal without leading zeros'],
  ])('refuses %j with invalid_ip: %s', (input, message) => {
    const error = (() => {
      try {
        resolver.lookup(input);
      } catch (caught) {
        return caught;
      }
    })();
    expect(ServiceError.is(error)).toBe(true);
    expect(error).toMatchObject({ code: 'invalid_ip', status: 400 });
    expect((error as Error).message).toContain(message);
  });

  it('fills country name, continent and a coordinate timezone when the data lacks them', async () => {
    const bare: GeoBackend = {
      id: 'bare',
      provides: ['country', 'city', 'latitude', 'longitude'],
      lookup: () => ({ country: 'FR', city: 'Lyon', latitude: 45.76, longitude: 4.83 }),
    };
    const filled = await createGeoResolver({ backends: [bare] });
    expect(filled.lookup('8.8.8.8')).toMatchObject({
      country_name: 'France',
      continent: 'EU',
      timezone: 'Europe/Paris',
      sources: { country: 'bare', country_name: 'derived', continent: 'derived', timezone: 'derived' },
    });
  });

  it('skips a backend that throws and reports it', async () => {
    const errors: string[] = [];
    const broken: GeoBackend = {
      id: 'broken',
      provides: ['asn'],
      lookup: () => {
        throw new Error('decoder exploded');
      },
    };
    const asn = await openMmdbBackend({ source: testDatabase('GeoLite2-ASN-Test.mmdb') });
    const guarded = await createGeoResolver({
      backends: [broken, asn],
      onBackendError: (id, error) => errors.push(`${id}: ${error.message}`),
    });
    expect(guarded.lookup('1.128.0.0').asn).toBe(1221);
    expect(errors).toEqual(['broken: decoder exploded']);
  });

  it('validates its options', async () => {
    await expect(createGeoResolver({ backends: [] })).rejects.toThrow('needs at least one backend');
    const asn = await openMmdbBackend({ source: testDatabase('GeoLite2-ASN-Test.mmdb') });
    await expect(createGeoResolver({ backends: [asn, asn] })).rejects.toThrow('backend ids must be unique');
    await expect(createGeoResolver({ backends: [asn], cacheSize: -1 })).rejects.toThrow(
      'cacheSize must be an integer ≥ 0',
    );
  });
});
