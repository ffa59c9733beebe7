import { createMmdbWriter, mmdbTypes } from '@svc/mmdb-writer';
import { describe, expect, it } from 'vitest';
import { openMmdbBackend } from './backends/mmdb.js';
import { createGeoResolver } from './resolver.js';
import { type CitySourceRecord, sourceRecords, testDatabase } from './testing/fixtures.js';

/** A City-layout file (MaxMind's) that has a radius, for 8.8.8.0/24. */
const withRadius = (radius: number) => {
  const writer = createMmdbWriter({ databaseType: 'GeoLite2-City', ipVersion: 6, recordSize: 28 });
  writer.insert('8.8.8.0/24', {
    country: { iso_code: 'US' },
    location: { latitude: 37.751, longitude: -97.822, accuracy_radius: mmdbTypes.uint16(radius) },
  } as never);
  return openMmdbBackend({ source: writer.toBuffer(), id: 'maxmind' });
};

/** An ip-location-db file (the bundled DB-IP Lite's layout): coordinates, no radius. */
const withoutRadius = () => {
  const writer = createMmdbWriter({ databaseType: 'city ipv4', ipVersion: 4, recordSize: 24 });
  writer.insert('8.8.8.0/24', {
    country_code: 'US',
    city: 'Mountain View',
    latitude: mmdbTypes.float(37.422),
    longitude: mmdbTypes.float(-122.085),
  } as never);
  return openMmdbBackend({ source: writer.toBuffer(), id: 'dbip' });
};

describe('accuracy_radius_km', () => {
  it("gives MaxMind's radius, as the official City test file holds it", async () => {
    const resolver = await createGeoResolver({
      backends: [await openMmdbBackend({ source: testDatabase('GeoIP2-City-Test.mmdb') })],
    });
    const source = sourceRecords('GeoIP2-City-Test.json').find(
      ([network]) => network === '::81.2.69.142/127',
    )?.[1] as unknown as CitySourceRecord;
    expect(source.location.accuracy_radius).toBeGreaterThan(0);
    expect(resolver.lookup('81.2.69.142')).toMatchObject({
      accuracy_radius_km: source.location.accuracy_radius,
      sources: { latitude: 'geoip2-city', accuracy_radius_km: 'geoip2-city' },
    });
  });

  it('is null where the data has no radius (the bundled DB-IP Lite layout)', async () => {
    const resolver = await createGeoResolver({ backends: [await withoutRadius()] });
    const result = resolver.lookup('8.8.8.8');
    expect(result.latitude).toBe(37.422);
    expect(result.accuracy_radius_km).toBeNull();
    expect(result.sources).not.toHaveProperty('accuracy_radius_km');
  });

  it("never pairs one file's radius with another file's coordinates", async () => {
    const dbipFirst = await createGeoResolver({ backends: [await withoutRadius(), await withRadius(1000)] });
    expect(dbipFirst.lookup('8.8.8.8')).toMatchObject({ latitude: 37.422, accuracy_radius_km: null });
    expect(dbipFirst.lookup('8.8.8.8').sources).not.toHaveProperty('accuracy_radius_km');

    const maxmindFirst = await createGeoResolver({
      backends: [await withRadius(1000), await withoutRadius()],
    });
    expect(maxmindFirst.lookup('8.8.8.8')).toMatchObject({
      latitude: 37.751,
      accuracy_radius_km: 1000,
      city: 'Mountain View',
      sources: { latitude: 'maxmind', accuracy_radius_km: 'maxmind', city: 'dbip' },
    });
  });

  it('gives the same through lookup-only backends as through the tree fast path', async () => {
    const [dbip, maxmind] = [await withoutRadius(), await withRadius(50)];
    const plain = (backend: typeof dbip) => ({
      id: backend.id,
      provides: backend.provides,
      lookup: (ip: string, family: 4 | 6) => backend.lookup(ip, family),
    });
    for (const order of [
      [dbip, maxmind],
      [maxmind, dbip],
    ]) {
      const fast = await createGeoResolver({ backends: order, cacheSize: 0 });
      const slow = await createGeoResolver({ backends: order.map(plain), cacheSize: 0 });
      const { network: _, ...fastResult } = fast.lookup('8.8.8.8');
      const { network: __, ...slowResult } = slow.lookup('8.8.8.8');
      expect(slowResult).toEqual(fastResult);
    }
  });

  it('treats a zero radius as unknown, not as an exact location', async () => {
    const resolver = await createGeoResolver({ backends: [await withRadius(0)] });
    expect(resolver.lookup('8.8.8.8').accuracy_radius_km).toBeNull();
  });
});
