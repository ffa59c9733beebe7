import { readFileSync } from 'node:fs';
import { Reader } from 'maxmind';
import { describe, expect, it } from 'vitest';
import { sourceRecords, testDatabase } from '../testing/fixtures.js';
import { openMmdbBackend } from './mmdb.js';
import {
  maxmindAnonymousSchema,
  maxmindAsnSchema,
  maxmindCitySchema,
  maxmindIspSchema,
  maxmindResidentialProxySchema,
  mmdbSchemaByName,
  schemaForDatabaseType,
} from './mmdb-schemas.js';

type Json = Record<string, unknown>;

/** The address a source network starts with, as a lookup takes it (IPv4 for `::a.b.c.d/n`). */
const firstAddress = (network: string): [string, 4 | 6] => {
  const address = (network.split('/')[0] as string).replace(/^::(\d+\.)/, '$1');
  return [address, address.includes(':') ? 6 : 4];
};

describe('schema detection from database_type', () => {
  it('knows every file type we ship or document', () => {
    const expected: Array<[string, unknown]> = [
      ['GeoIP2-City', maxmindCitySchema],
      ['GeoLite2-City', maxmindCitySchema],
      ['GeoIP2-Country', maxmindCitySchema],
      ['GeoIP2-City-Shield', maxmindCitySchema],
      ['GeoIP2-City-Europe', maxmindCitySchema],
      ['GeoIP2-Enterprise', maxmindCitySchema],
      ['GeoIP2-Precision-Enterprise', maxmindCitySchema],
      ['DBIP-City-Lite', maxmindCitySchema],
      ['DBIP-Country-Lite', maxmindCitySchema],
      ['DBIP-Country', maxmindCitySchema],
      ['DBIP-Location (compat=City)', maxmindCitySchema],
      ['DBIP-Location-ISP (compat=Enterprise)', maxmindCitySchema],
      ['DBIP-ASN-Lite (compat=GeoLite2-ASN)', maxmindAsnSchema],
      ['GeoLite2-ASN', maxmindAsnSchema],
      ['DBIP-ASN-Lite', maxmindAsnSchema],
      ['svc-ASN', maxmindAsnSchema],
      ['GeoIP2-ISP', maxmindIspSchema],
      ['GeoIP2-Anonymous-IP', maxmindAnonymousSchema],
      ['GeoIP-Anonymous-Plus', maxmindAnonymousSchema],
      ['GeoIP-Residential-Proxy', maxmindResidentialProxySchema],
      ['city ipv4', mmdbSchemaByName('ip-location-db')],
      ['city ipv6', mmdbSchemaByName('ip-location-db')],
      ['country ipv4', mmdbSchemaByName('ip-location-db')],
      ['asn ipv6', mmdbSchemaByName('ip-location-db')],
      ['ipinfo standard_location.mmdb', mmdbSchemaByName('ipinfo')],
    ];
    for (const [type, schema] of expected) {
      expect(schema, type).toBeDefined();
      expect(schemaForDatabaseType(type), type).toBe(schema);
    }
  });

  it('refuses MaxMind products with none of our fields, and made-up types', () => {
    for (const type of [
      'GeoIP2-Connection-Type',
      'GeoIP2-Domain',
      'GeoIP2-User-Count',
      'GeoIP2-IP-Risk',
      'GeoIP2-Static-IP-Score',
      'GeoIP2-DensityIncome',
      'MaxMind DB Decoder Test',
      'my city ipv4 extract',
    ]) {
      expect(schemaForDatabaseType(type), type).toBeUndefined();
    }
  });

  it('explains an unknown type: what is supported, and how to pass a schema in code and in the CLI', async () => {
    const error = await openMmdbBackend({ source: testDatabase('GeoIP2-Connection-Type-Test.mmdb') }).then(
      () => null,
      (thrown: Error) => thrown,
    );
    expect(error?.message).toContain('unknown database_type "GeoIP2-Connection-Type"');
    expect(error?.message).toContain('GeoIP-Residential-Proxy');
    expect(error?.message).toContain('"city|country|asn ipv4|ipv6"');
    expect(error?.message).toContain('openMmdbBackend({ source, schema: maxmindCitySchema })');
    expect(error?.message).toContain('svc geo --db <file> --schema <name>');
    expect(error?.message).toMatch(
      /schema names: city, asn, isp, anonymous-ip, residential-proxy, ip-location-db, ipinfo, ipinfo-lite/,
    );
  });
});

describe('GeoIP2 Enterprise and City traits', () => {
  it('gives asn, org and isp from traits, as the official Enterprise test file holds them', async () => {
    const path = testDatabase('GeoIP2-Enterprise-Test.mmdb');
    const backend = await openMmdbBackend({ source: path });
    const reader = new Reader<Json>(readFileSync(path));
    let checked = 0;
    for (const [network, record] of sourceRecords('GeoIP2-Enterprise-Test.json')) {
      const traits = record.traits as Json | undefined;
      if (traits?.autonomous_system_number === undefined && traits?.isp === undefined) continue;
      const [address, family] = firstAddress(network);
      // The stored record (nested networks of the source may have replaced part of a network).
      const stored = reader.get(address)?.traits as Json;
      expect(backend.lookup(address, family), network).toMatchObject({
        asn: stored.autonomous_system_number ?? null,
        org: stored.autonomous_system_organization ?? stored.organization ?? null,
        isp: stored.isp ?? null,
      });
      checked++;
    }
    expect(checked).toBeGreaterThan(10);
    expect(backend.lookup('89.160.20.112', 4)).toMatchObject({
      asn: 29518,
      org: 'Bredband2 AB',
      isp: 'Bredband2 AB',
      country: 'SE',
    });
    // No AS organisation in this record: the organisation stands in, as for ISP files.
    expect(backend.lookup('67.43.156.1', 4)).toMatchObject({
      asn: 35908,
      org: 'zudoarichikito_',
      isp: 'Loud Packet',
    });
  });
});

describe('GeoIP-Anonymous-Plus and GeoIP-Residential-Proxy', () => {
  it('maps Anonymous-Plus flags like Anonymous-IP', async () => {
    const backend = await openMmdbBackend({ source: testDatabase('GeoIP-Anonymous-Plus-Test.mmdb') });
    expect(backend.provides).toEqual(maxmindAnonymousSchema.provides);
    let checked = 0;
    for (const [network, record] of sourceRecords('GeoIP-Anonymous-Plus-Test.json')) {
      const [address, family] = firstAddress(network);
      expect(backend.lookup(address, family), network).toMatchObject({
        is_vpn: record.is_anonymous_vpn === true,
        is_proxy:
          record.is_public_proxy === true ||
          record.is_residential_proxy === true ||
          record.is_tor_exit_node === true,
        is_hosting: record.is_hosting_provider === true,
        is_tor: record.is_tor_exit_node === true,
      });
      checked++;
    }
    expect(checked).toBe(32);
  });

  it('sets is_proxy for every listed network and leaves the other flags unknown', async () => {
    const backend = await openMmdbBackend({ source: testDatabase('GeoIP-Residential-Proxy-Test.mmdb') });
    expect(backend.id).toBe('geoip-residential-proxy');
    for (const [network] of sourceRecords('GeoIP-Residential-Proxy-Test.json')) {
      const [address, family] = firstAddress(network);
      expect(backend.lookup(address, family), network).toEqual({
        is_proxy: true,
        network: expect.any(String),
      });
    }
    expect(backend.lookup('1.2.0.5', 4)).toBeNull();
  });
});

describe('region and region_code', () => {
  it('gives the English subdivision name and its ISO 3166-2 code with the country', async () => {
    const backend = await openMmdbBackend({ source: testDatabase('GeoIP2-City-Test.mmdb') });
    expect(backend.lookup('81.2.69.142', 4)).toMatchObject({ region: 'England', region_code: 'GB-ENG' });
    expect(backend.lookup('216.160.83.56', 4)).toMatchObject({ region: 'Washington', region_code: 'US-WA' });
    // Two levels (England, West Berkshire): the first is the region.
    expect(backend.lookup('2.125.160.216', 4)).toMatchObject({ region: 'England', region_code: 'GB-ENG' });
    // No subdivision in the data: neither.
    expect(backend.lookup('2001:218::1', 6)).toMatchObject({ region: null, region_code: null });
  });

  it('gives no code without the physical country (the registered one is another country)', () => {
    const mapped = maxmindCitySchema.map({
      registered_country: { iso_code: 'US' },
      subdivisions: [{ iso_code: 'CA', names: { en: 'California' } }],
    });
    expect(mapped).toMatchObject({ country: 'US', region: 'California', region_code: null });
  });
});
