import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

/** `svc geo 8.8.8.8 --json` as a user runs it, under a permissive umask (022). */
const svcGeo = (dataDir: string) =>
  run('/bin/sh', ['-c', 'umask 022 && exec "$0" "$@"', process.execPath, bin, 'geo', '8.8.8.8', '--json'], {
    env: { ...process.env, SVC_DATA_DIR: dataDir },
  });

/** Every file and dir under `dir` with its mode, inode and modification time. */
async function snapshot(dir: string) {
  const entries = await readdir(dir, { recursive: true });
  return Promise.all(
    [dir, ...entries.sort().map((entry) => join(dir, entry))].map(async (path) => {
      const info = await stat(path);
      return { path, mode: info.mode & 0o777, ino: info.ino, mtimeMs: info.mtimeMs, dir: info.isDirectory() };
    }),
  );
}

// The built binary, as bin.test.ts: the root `pnpm test` builds first.
describe.runIf(existsSync(bin))('svc geo processes sharing a data dir', () => {
  let root: string;
  let dataDir: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'svc-shared-'));
    dataDir = join(root, 'svc');
    // First use: compiles the ASN data and verifies the city files (35 s at load 8 to 11: root README).
    await svcGeo(dataDir);
  }, 180_000);
  afterAll(async () => {
    for (const entry of await snapshot(dataDir).catch(() => [])) {
      if (entry.dir) await chmod(entry.path, 0o700);
    }
    await rm(root, { recursive: true, force: true });
  });

  it('creates the data dir 0700 and its files 0600 under a 022 umask', async () => {
    const entries = await snapshot(dataDir);
    expect(entries.length).toBeGreaterThan(3);
    for (const entry of entries) expect(entry.mode, entry.path).toBe(entry.dir ? 0o700 : 0o600);
  });

  it('8 concurrent runs on the compiled, read-only dir all answer and rewrite nothing', async () => {
    const before = await snapshot(dataDir);
    // Files first, then their dirs, deepest first.
    for (const entry of [...before].reverse()) await chmod(entry.path, entry.dir ? 0o500 : 0o400);
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => svcGeo(dataDir)));
    const failures = results.filter((result) => result.status === 'rejected');
    expect(failures.map((failure) => String((failure as PromiseRejectedResult).reason))).toEqual([]);
    for (const result of results) {
      const { stdout } = (result as PromiseFulfilledResult<{ stdout: string }>).value;
      expect(JSON.parse(stdout)).toMatchObject({ ip: '8.8.8.8', asn: 15169 });
    }
    // Root ignores the modes, so unchanged files, inodes and times are what proves it.
    const after = await snapshot(dataDir);
    expect(after.map(({ path, ino, mtimeMs }) => ({ path, ino, mtimeMs }))).toEqual(
      before.map(({ path, ino, mtimeMs }) => ({ path, ino, mtimeMs })),
    );
  }, 120_000);
});
