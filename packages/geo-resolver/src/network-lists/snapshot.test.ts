import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { BUNDLED_LISTS_MMDB, compileSnapshots, manifestPath } from './snapshot.js';

describe('the shipped network-lists.mmdb', () => {
  it('is the compile of the snapshot files (rebuild with src/network-lists/build-snapshot.ts)', async () => {
    const { mmdb, manifest } = await compileSnapshots();
    const shipped = await readFile(BUNDLED_LISTS_MMDB);
    expect(shipped.equals(mmdb)).toBe(true);
    expect(JSON.parse(await readFile(manifestPath(BUNDLED_LISTS_MMDB), 'utf8'))).toEqual(manifest);
    // A few MB at most in the repository.
    expect(shipped.length).toBeLessThan(3_000_000);
  }, 60_000);
});

describe('the registry of network lists', () => {
  it('gives every list an update URL, a format, bounds and a snapshot that meets its own minimum', async () => {
    const { NETWORK_LIST_DATASETS } = await import('../datasets.js');
    const { readSnapshots } = await import('./snapshot.js');
    const snapshots = await readSnapshots();
    for (const dataset of NETWORK_LIST_DATASETS) {
      expect(dataset.urls.length, dataset.id).toBeGreaterThan(0);
      for (const url of dataset.urls) expect(new URL(url).protocol, dataset.id).toBe('https:');
      expect(['lines', 'csv', 'json'], dataset.id).toContain(dataset.format);
      const snapshot = snapshots.find((entry) => entry.dataset.id === dataset.id);
      expect(snapshot?.ranges.length ?? 0, dataset.id).toBeGreaterThanOrEqual(dataset.minCount);
    }
  });
});
