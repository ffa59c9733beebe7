import { execFileSync } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { badDatabase, testDatabase } from '../testing/fixtures.js';
import { extractMmdb, installMmdb } from './install.js';

describe('installing downloaded databases', () => {
  let dir: string;
  let good: Buffer;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'geo-install-'));
    good = await readFile(testDatabase('GeoIP2-City-Test.mmdb'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('accepts the raw file, a gzip and a tar.gz (as MaxMind ships GeoLite2)', async () => {
    expect(extractMmdb(good).equals(good)).toBe(true);
    expect(extractMmdb(gzipSync(good)).equals(good)).toBe(true);
    // A real archive made by the system tar, with a directory and a licence file first.
    const staging = join(dir, 'GeoLite2-City_20261120');
    execFileSync('mkdir', ['-p', staging]);
    await writeFile(join(staging, 'LICENSE.txt'), 'licence text');
    await copyFile(testDatabase('GeoIP2-City-Test.mmdb'), join(staging, 'GeoLite2-City.mmdb'));
    execFileSync('tar', ['-czf', join(dir, 'city.tar.gz'), '-C', dir, 'GeoLite2-City_20261120']);
    expect(extractMmdb(await readFile(join(dir, 'city.tar.gz'))).equals(good)).toBe(true);
  });

  it('installs atomically and reports what it installed', async () => {
    const target = join(dir, 'data', 'city.mmdb');
    const info = await installMmdb(gzipSync(good), target);
    expect(info.databaseType).toBe('GeoIP2-City');
    expect((await readFile(target)).equals(good)).toBe(true);
  });

  it('refuses a corrupt download and keeps the installed file', async () => {
    const target = join(dir, 'keep.mmdb');
    await installMmdb(good, target);
    const corrupt = await readFile(badDatabase('libmaxminddb/libmaxminddb-corrupt-search-tree.mmdb'));
    await expect(installMmdb(gzipSync(corrupt), target)).rejects.toThrow(/corrupt|reachable/);
    await expect(installMmdb(Buffer.from([0x1f, 0x8b, 1, 2, 3]), target)).rejects.toThrow(
      'not a valid gzip file',
    );
    await expect(installMmdb(Buffer.from('<html>error</html>'), target)).rejects.toThrow(
      /not a valid MaxMind DB file/,
    );
    expect((await readFile(target)).equals(good)).toBe(true);
  });

  it('explains an archive without a database', async () => {
    const staging = join(dir, 'empty');
    execFileSync('mkdir', ['-p', staging]);
    await writeFile(join(staging, 'README'), 'nothing here');
    execFileSync('tar', ['-czf', join(dir, 'empty.tar.gz'), '-C', dir, 'empty']);
    expect(() => extractMmdb(Buffer.from(execFileSync('cat', [join(dir, 'empty.tar.gz')])))).toThrow(
      'the archive holds no .mmdb file',
    );
  });
});
