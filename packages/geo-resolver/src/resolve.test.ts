import { formatIpv4, formatIpv6 } from '@svc/ip-address';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GeoBackend } from './backend.js';
import { openCidrListBackend } from './backends/cidr-list.js';
import { openMmdbBackend } from './backends/mmdb.js';
import { createGeoResolver, type GeoResolver } from './resolver.js';
import { sourceRecords, testDatabase } from './testing/fixtures.js';
import { randomIpv4, randomIpv6, seeded } from './testing/random.js';

// The same backend without its fast path: the resolver then wraps each answer of lookup().
const withoutFastPath = (backend: GeoBackend): GeoBackend => ({
  id: backend.id,
  provides: backend.provides,
  lookup: (ip, family) => backend.lookup(ip, family),
});

const outcome = (resolver: GeoResolver, input: string) => {
  try {
    return resolver.lookup(input);
  } catch (error) {
    return (error as Error).message;
  }
};

describe('resolve: backends give the same results through the fast path as through lookup()', () => {
  let fast: GeoResolver;
  let generic: GeoResolver;
  beforeAll(async () => {
    const backends = [
      await openMmdbBackend({ source: testDatabase('GeoIP2-City-Test.mmdb') }),
      await openMmdbBackend({ source: testDatabase('GeoLite2-ASN-Test.mmdb') }),
      await openMmdbBackend({ source: testDatabase('GeoIP2-Anonymous-IP-Test.mmdb') }),
      await openMmdbBackend({ source: testDatabase('GeoIP2-Enterprise-Test.mmdb') }),
    ];
    fast = await createGeoResolver({ backends, cacheSize: 0 });
    generic = await createGeoResolver({ backends: backends.map(withoutFastPath), cacheSize: 0 });
  });
  afterAll(() => {
    fast.close();
    generic.close();
  });

  it('on every network of the City, ASN, Anonymous-IP and Enterprise sources, random addresses and tunnels', () => {
    const inputs = new Set<string>();
    for (const file of [
      'GeoIP2-City-Test.json',
      'GeoLite2-ASN-Test.json',
      'GeoIP2-Anonymous-IP-Test.json',
      'GeoIP2-Enterprise-Test.json',
    ]) {
      for (const [network] of sourceRecords(file))
        inputs.add((network.split('/')[0] as string).replace(/^::(\d+\.)/, '$1'));
    }
    const random = seeded(11);
    for (let index = 0; index < 500; index++) {
      inputs.add(formatIpv4(randomIpv4(random)));
      inputs.add(formatIpv6(randomIpv6(random, 0x2000 + Math.floor(random() * 0x1000))));
    }
    for (const tunnel of [
      '::ffff:81.2.69.142',
      '2002:5102:458e::1', // 6to4 carrying 81.2.69.142
      '2001:0:4136:e378:8000:63bf:aefd:ba71', // Teredo carrying 81.2.69.142
      '64:ff9b::5102:458e', // NAT64 carrying 81.2.69.142
    ])
      inputs.add(tunnel);
    let cities = 0;
    let autonomousSystems = 0;
    for (const input of inputs) {
      const expected = outcome(generic, input);
      const actual = outcome(fast, input);
      expect(actual, input).toStrictEqual(expected);
      if (typeof actual === 'string') continue;
      // Same keys in the same order, down to the provenance.
      expect(Object.keys(actual), input).toEqual(Object.keys(expected));
      expect(Object.keys(actual.sources), input).toEqual(Object.keys((expected as typeof actual).sources));
      expect(Object.isFrozen(actual) && Object.isFrozen(actual.sources), input).toBe(true);
      if (actual.city !== null) cities++;
      if (actual.asn !== null) autonomousSystems++;
    }
    // Enough answers with data from each file for the comparison to mean something.
    expect(cities).toBeGreaterThan(10);
    expect(autonomousSystems).toBeGreaterThan(100);
    expect(fast.lookup('2002:5102:458e::1')).toMatchObject({ city: 'London', network: '81.2.69.142/31' });
  });

  it('reports a throwing backend and still merges the others', async () => {
    const errors: string[] = [];
    const asn = await openMmdbBackend({ source: testDatabase('GeoLite2-ASN-Test.mmdb') });
    const broken: GeoBackend = {
      id: 'broken',
      provides: ['city'],
      lookup: () => null,
      lookupAddress: () => {
        throw new Error('tree exploded');
      },
    };
    const resolver = await createGeoResolver({
      backends: [broken, asn],
      cacheSize: 0,
      onBackendError: (id, error) => errors.push(`${id}: ${error.message}`),
    });
    expect(resolver.lookup('1.128.0.1')).toMatchObject({
      asn: 1221,
      network: '1.128.0.0/11',
      sources: { asn: 'geolite2-asn', network: 'geolite2-asn' },
    });
    expect(errors).toEqual(['broken: tree exploded']);
  });

  it('mixes fast-path and lookup-only backends in priority order', async () => {
    const lists = await openCidrListBackend({ lists: [{ flag: 'is_vpn', networks: ['81.2.69.0/24'] }] });
    const resolver = await createGeoResolver({
      backends: [lists, await openMmdbBackend({ source: testDatabase('GeoIP2-Anonymous-IP-Test.mmdb') })],
      cacheSize: 0,
    });
    expect(resolver.lookup('81.2.69.1')).toMatchObject({
      is_vpn: true,
      is_tor: true,
      sources: { is_vpn: 'cidr-lists', is_tor: 'geoip2-anonymous-ip', network: 'geoip2-anonymous-ip' },
    });
  });

  it('lists region_code after region, with its source, and a lookup-only network in its place', async () => {
    const resolver = await createGeoResolver({
      backends: [
        {
          id: 'own',
          provides: ['network', 'is_hosting'],
          lookup: (ip) => (ip === '81.2.69.161' ? { network: '81.2.69.0/24', is_hosting: true } : null),
        },
        await openMmdbBackend({ source: testDatabase('GeoIP2-Enterprise-Test.mmdb') }),
      ],
      cacheSize: 0,
    });
    const result = resolver.lookup('81.2.69.161');
    expect(Object.keys(result).slice(0, 7)).toEqual([
      'ip',
      'continent',
      'country',
      'country_name',
      'region',
      'region_code',
      'city',
    ]);
    expect(result).toMatchObject({
      region: 'England',
      region_code: 'GB-ENG',
      network: '81.2.69.0/24',
      is_hosting: true,
      isp: 'Andrews & Arnold Ltd',
      sources: { network: 'own', region_code: 'geoip2-enterprise', isp: 'geoip2-enterprise' },
    });
    // Where the lookup-only backend has nothing, the tree's network is reported.
    expect(resolver.lookup('81.2.69.170')).toMatchObject({
      network: '81.2.69.160/27',
      sources: { network: 'geoip2-enterprise' },
    });
  });
});
