import { copyFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sharedTempDir } from '@svc/testkit/vitest';
import { describe, expect, it } from 'vitest';
import { byFamily } from './backends/by-family.js';
import { openCidrListBackend } from './backends/cidr-list.js';
import { openMmdbBackend } from './backends/mmdb.js';
import { ipLocationDbSchema as schema } from './backends/mmdb-schemas.js';
import { openDefaultBackends } from './data/default-data.js';
import { NETWORK_LIST_DATASETS } from './datasets.js';
import { createGeoResolver } from './resolver.js';
import { testDatabase } from './testing/fixtures.js';

const dir = sharedTempDir('geo-databases-');

describe('resolver.databases()', () => {
  it('lists each database in priority order with its type, build date and source, and follows a reload', async () => {
    const city = join(dir(), 'city.mmdb');
    await copyFile(testDatabase('GeoIP2-City-Test.mmdb'), city);
    const resolver = await createGeoResolver({
      timezoneFromCoordinates: false,
      backends: [
        await openMmdbBackend({ source: city, id: 'city' }),
        byFamily(
          'split',
          await openMmdbBackend({
            source: testDatabase('MaxMind-DB-test-ipv4-24.mmdb'),
            schema,
            id: 'split-v4',
          }),
          await openMmdbBackend({
            source: testDatabase('MaxMind-DB-test-ipv6-24.mmdb'),
            schema,
            id: 'split-v6',
          }),
        ),
        await openMmdbBackend({
          source: testDatabase('GeoLite2-ASN-Test.mmdb'),
          id: 'asn',
          sourceLabel: 'compiled from asn.csv',
        }),
        await openCidrListBackend({ lists: [{ flag: 'is_tor', networks: ['192.0.2.0/24'] }] }),
      ],
    });
    try {
      const listed = resolver.databases();
      expect(listed.map(({ id, databaseType, source }) => ({ id, databaseType, source }))).toEqual([
        { id: 'city', databaseType: 'GeoIP2-City', source: city },
        { id: 'split-v4', databaseType: 'Test', source: testDatabase('MaxMind-DB-test-ipv4-24.mmdb') },
        { id: 'split-v6', databaseType: 'Test', source: testDatabase('MaxMind-DB-test-ipv6-24.mmdb') },
        { id: 'asn', databaseType: 'GeoLite2-ASN', source: 'compiled from asn.csv' },
        { id: 'cidr-lists', databaseType: 'cidr-list', source: 'inline' },
      ]);
      // Build dates come from each file's metadata; lists have none.
      expect(listed[0]?.buildEpoch).toBeInstanceOf(Date);
      expect(listed[0]?.buildEpoch?.getTime()).toBeGreaterThan(Date.UTC(2010, 0, 1));
      expect(listed[4]?.buildEpoch).toBeNull();

      // New data at the same path: after the reload the description is the new file's.
      await copyFile(testDatabase('GeoIP2-Enterprise-Test.mmdb'), city);
      await resolver.reload();
      expect(resolver.databases()[0]).toMatchObject({ id: 'city', databaseType: 'GeoIP2-Enterprise' });
    } finally {
      resolver.close();
    }
  });

  it('describes the default data: both city files by path and the compiled ASN file with the CSVs it came from', async () => {
    const asnCsv = [join(dir(), 'asn-ipv4.csv'), join(dir(), 'asn-ipv6.csv')];
    await writeFile(asnCsv[0] as string, '1.0.0.0,1.0.0.255,13335,Cloudflare\n');
    await writeFile(
      asnCsv[1] as string,
      '2606:4700::,2606:4700:ffff:ffff:ffff:ffff:ffff:ffff,13335,Cloudflare\n',
    );
    const backends = await openDefaultBackends({
      cityIpv4: testDatabase('MaxMind-DB-test-ipv4-24.mmdb'),
      cityIpv6: testDatabase('MaxMind-DB-test-ipv6-24.mmdb'),
      asnCsv,
      cacheDir: join(dir(), 'cache'),
    });
    const resolver = await createGeoResolver({ backends, timezoneFromCoordinates: false });
    try {
      const databases = resolver.databases();
      // Then one entry per network list (Tor exits, cloud ranges, Private Relay), from the shipped snapshot.
      expect(databases.slice(3).map(({ id }) => id)).toEqual(NETWORK_LIST_DATASETS.map(({ id }) => id));
      expect(databases.slice(0, 3).map(({ id, source }) => ({ id, source }))).toEqual([
        { id: 'dbip-city-lite-ipv4', source: testDatabase('MaxMind-DB-test-ipv4-24.mmdb') },
        { id: 'dbip-city-lite-ipv6', source: testDatabase('MaxMind-DB-test-ipv6-24.mmdb') },
        {
          id: 'ip-location-db-asn',
          source: expect.stringMatching(
            new RegExp(`/cache/asn-\\d+\\.mmdb \\(compiled from ${asnCsv.join(', ')}\\)$`),
          ),
        },
      ]);
    } finally {
      resolver.close();
    }
  }, 60_000);
});
