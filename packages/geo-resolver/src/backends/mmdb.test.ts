import { copyFile, mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { badDatabase, type CitySourceRecord, sourceRecords, testDatabase } from '../testing/fixtures.js';
import { openMmdbBackend } from './mmdb.js';
import { maxmindAnonymousSchema, maxmindAsnSchema, maxmindCitySchema } from './mmdb-schemas.js';

const record = (file: string, cidr: string) => {
  const found = sourceRecords(file).find(([network]) => network === cidr);
  if (!found) throw new Error(`${cidr} not in ${file}`);
  return found[1] as unknown as CitySourceRecord;
};

describe('mmdb backend on MaxMind test databases', () => {
  it('maps a City record field by field, as the source JSON says', async () => {
    const city = await openMmdbBackend({ source: testDatabase('GeoIP2-City-Test.mmdb') });
    expect(city.id).toBe('geoip2-city');
    expect(city.databaseType).toBe('GeoIP2-City');
    const source = record('GeoIP2-City-Test.json', '::81.2.69.142/127');
    expect(city.lookup('81.2.69.142', 4)).toMatchObject({
      continent: source.continent.code,
      country: source.country.iso_code,
      country_name: source.country.names.en,
      city: source.city.names.en,
      region: source.subdivisions[0].names.en,
      latitude: source.location.latitude,
      longitude: source.location.longitude,
      timezone: source.location.time_zone,
      accuracy_radius_km: source.location.accuracy_radius,
      network: '81.2.69.142/31',
    });
    const tokyo = record('GeoIP2-City-Test.json', '2001:218::/32');
    expect(city.lookup('2001:218::1', 6)).toMatchObject({
      country: 'JP',
      timezone: tokyo.location.time_zone,
      network: '2001:218::/32',
    });
  });

  it('returns null where the data has nothing', async () => {
    const city = await openMmdbBackend({ source: testDatabase('GeoIP2-City-Test.mmdb') });
    expect(city.lookup('8.8.8.8', 4)).toBeNull();
  });

  it('maps ASN and Anonymous-IP records', async () => {
    const asn = await openMmdbBackend({ source: testDatabase('GeoLite2-ASN-Test.mmdb') });
    expect(asn.provides).toEqual(maxmindAsnSchema.provides);
    expect(asn.lookup('1.128.0.1', 4)).toEqual({
      asn: 1221,
      org: 'Telstra Pty Ltd',
      network: '1.128.0.0/11',
    });
    const anonymous = await openMmdbBackend({ source: testDatabase('GeoIP2-Anonymous-IP-Test.mmdb') });
    expect(anonymous.provides).toEqual(maxmindAnonymousSchema.provides);
    expect(anonymous.lookup('81.2.69.1', 4)).toMatchObject({
      is_vpn: true,
      is_proxy: true,
      is_hosting: true,
      is_tor: true,
    });
    expect(anonymous.lookup('1.2.0.1', 4)).toMatchObject({ is_vpn: true, is_proxy: false, is_tor: false });
  });

  it('never answers IPv6 from an IPv4-only tree (the reader would return a wrong record)', async () => {
    const v4only = await openMmdbBackend({
      source: testDatabase('MaxMind-DB-test-ipv4-24.mmdb'),
      schema: maxmindCitySchema,
    });
    expect(v4only.ipVersion).toBe(4);
    expect(v4only.lookup('1.1.1.1', 4)).not.toBeNull();
    // 0101:0101:: walks the same first 32 bits as 1.1.1.1 in a 32-bit tree.
    expect(v4only.lookup('101:101::', 6)).toBeNull();
  });

  it('rejects every corrupt file of the official bad-data set at open, with a clear error', async () => {
    const files = [
      'libmaxminddb/libmaxminddb-corrupt-search-tree.mmdb',
      'libmaxminddb/libmaxminddb-metadata-marker-only.mmdb',
      'libmaxminddb/libmaxminddb-offset-integer-overflow.mmdb',
      'maxminddb-golang/cyclic-data-structure.mmdb',
      'maxminddb-golang/invalid-data-record-offset.mmdb',
      'maxminddb-golang/metadata-is-an-uint128.mmdb',
      'maxminddb-golang/unexpected-bytes.mmdb',
      'maxminddb-golang/invalid-string-length.mmdb',
      'libmaxminddb/libmaxminddb-oversized-map.mmdb',
    ];
    for (const file of files) {
      await expect(
        openMmdbBackend({ source: badDatabase(file), schema: maxmindCitySchema }),
        file,
      ).rejects.toThrow(/is not a valid MaxMind DB file|is corrupt|impossible metadata/);
    }
  });

  it('accepts every well-formed official test database (no false alarms from the full verification)', async () => {
    const { readdirSync } = await import('node:fs');
    const { dirname } = await import('node:path');
    const files = readdirSync(dirname(testDatabase('x'))).filter(
      (file) => file.endsWith('.mmdb') && !/broken|invalid/i.test(file),
    );
    expect(files.length).toBeGreaterThan(25);
    for (const file of files) {
      const backend = await openMmdbBackend({ source: testDatabase(file), schema: maxmindCitySchema });
      expect(backend.ipVersion, file).toBeGreaterThanOrEqual(4);
    }
  });

  it('refuses the official files with a broken node count or broken pointers', async () => {
    for (const file of [
      'GeoIP2-City-Test-Invalid-Node-Count.mmdb',
      'MaxMind-DB-test-broken-pointers-24.mmdb',
    ]) {
      await expect(
        openMmdbBackend({ source: testDatabase(file), schema: maxmindCitySchema }),
        file,
      ).rejects.toThrow(/corrupt|not a valid/);
    }
  });

  it('refuses a file whose database_type it cannot map, unless given a schema', async () => {
    await expect(openMmdbBackend({ source: testDatabase('MaxMind-DB-test-decoder.mmdb') })).rejects.toThrow(
      'unknown database_type "MaxMind DB Decoder Test". Recognised types:',
    );
    const backend = await openMmdbBackend({
      source: testDatabase('MaxMind-DB-test-decoder.mmdb'),
      schema: maxmindAsnSchema,
    });
    expect(backend.databaseType).toBe('MaxMind DB Decoder Test');
  });
});

describe('mmdb backend reload and watch', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('keeps serving the old data when the new file is corrupt, and swaps in a good one', async () => {
    dir = await mkdtemp(join(tmpdir(), 'geo-reload-'));
    const path = join(dir, 'current.mmdb');
    await copyFile(testDatabase('GeoLite2-ASN-Test.mmdb'), path);
    const errors: Error[] = [];
    let reloads = 0;
    const backend = await openMmdbBackend({
      source: path,
      watch: true,
      onError: (error) => errors.push(error),
      onReload: () => reloads++,
    });
    try {
      expect(backend.lookup('1.128.0.1', 4)?.asn).toBe(1221);
      // A corrupt file dropped in place by an atomic rename: the watcher reports and keeps old data.
      await copyFile(
        badDatabase('libmaxminddb/libmaxminddb-corrupt-search-tree.mmdb'),
        join(dir, 'next.mmdb'),
      );
      await rename(join(dir, 'next.mmdb'), path);
      await expect.poll(() => errors.length, { timeout: 5000 }).toBeGreaterThan(0);
      expect(errors[0]?.message).toMatch(/current\.mmdb/);
      expect(backend.lookup('1.128.0.1', 4)?.asn).toBe(1221);
      expect(backend.generation).toBe(0);
      // A good file (another schema-compatible database) replaces it.
      await copyFile(testDatabase('GeoIP2-ISP-Test.mmdb'), join(dir, 'next.mmdb'));
      await rename(join(dir, 'next.mmdb'), path);
      await expect.poll(() => reloads, { timeout: 5000 }).toBeGreaterThan(0);
      expect(backend.generation).toBeGreaterThan(0);
      expect(backend.databaseType).toBe('GeoIP2-ISP');
    } finally {
      backend.close?.();
    }
  });

  it('with an explicit schema, reloads only a file whose database_type fits it', async () => {
    dir = await mkdtemp(join(tmpdir(), 'geo-reload-'));
    const path = join(dir, 'asn.mmdb');
    await copyFile(testDatabase('GeoLite2-ASN-Test.mmdb'), path);
    const backend = await openMmdbBackend({ source: path, schema: maxmindAsnSchema });
    // A City file in its place would answer null for every field through the ASN schema.
    await copyFile(testDatabase('GeoIP2-City-Test.mmdb'), path);
    await expect(backend.reload?.()).rejects.toThrow(
      'database_type "GeoIP2-City" does not fit the asn schema this backend reads (opened with "GeoLite2-ASN"; it is read with the city schema)',
    );
    expect(backend.lookup('1.128.0.1', 4)?.asn).toBe(1221);
    expect(backend.generation).toBe(0);
    // Another file the schema reads, or a file of the type it was opened with, is taken.
    await copyFile(testDatabase('GeoLite2-ASN-Test.mmdb'), path);
    await backend.reload?.();
    expect(backend.generation).toBe(1);
    // An unknown type read with a chosen schema reloads only as that same type.
    const decoderPath = join(dir, 'decoder.mmdb');
    await copyFile(testDatabase('MaxMind-DB-test-decoder.mmdb'), decoderPath);
    const decoder = await openMmdbBackend({ source: decoderPath, schema: maxmindCitySchema });
    await decoder.reload?.();
    expect(decoder.generation).toBe(1);
    await copyFile(testDatabase('GeoIP2-ISP-Test.mmdb'), decoderPath);
    await expect(decoder.reload?.()).rejects.toThrow('does not fit the city schema');
  });

  it('explains that a Buffer source cannot reload', async () => {
    const { readFile } = await import('node:fs/promises');
    const backend = await openMmdbBackend({ source: await readFile(testDatabase('GeoLite2-ASN-Test.mmdb')) });
    await expect(backend.reload?.()).rejects.toThrow('a backend opened from a Buffer cannot reload');
  });
});
