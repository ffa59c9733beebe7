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
