import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabase } from '../testing/fixtures.js';

const run = promisify(execFile);
const packageDir = fileURLToPath(new URL('../..', import.meta.url));
const child = fileURLToPath(new URL('../testing/default-data-child.ts', import.meta.url));

/** Runs `count` processes at once that open the default backends on one shared cache dir. */
async function runConcurrently(count: number, env: Record<string, string>) {
  return Promise.allSettled(
    Array.from({ length: count }, () =>
      // From the package dir, so `tsx` and the workspace packages (their `source` export) resolve.
      run(process.execPath, ['--conditions=source', '--import', 'tsx', child], {
        cwd: packageDir,
        env: { ...process.env, ...env },
      }),
    ),
  );
}

/** Every entry of a dir with its mode and modification time, to see what a run changed. */
async function snapshot(dir: string) {
  const entries = await readdir(dir);
  return Promise.all(
    entries.sort().map(async (name) => {
      const info = await stat(join(dir, name));
      return { name, mode: info.mode & 0o777, mtimeMs: info.mtimeMs, ino: info.ino };
    }),
  );
}

describe('several processes sharing one cache dir', () => {
  let root: string;
  let cacheDir: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'geo-shared-'));
    cacheDir = join(root, 'svc', 'geo');
    await writeFile(join(root, 'asn-ipv4.csv'), '1.0.0.0,1.0.0.255,13335,Cloudflare\n');
    await writeFile(
      join(root, 'asn-ipv6.csv'),
      '2606:4700::,2606:4700:ffff:ffff:ffff:ffff:ffff:ffff,13335,Cloudflare\n',
    );
    env = {
      CHILD_CITY_IPV4: testDatabase('MaxMind-DB-test-ipv4-24.mmdb'),
      CHILD_CITY_IPV6: testDatabase('MaxMind-DB-test-ipv6-24.mmdb'),
      CHILD_ASN_CSV: `${join(root, 'asn-ipv4.csv')},${join(root, 'asn-ipv6.csv')}`,
      CHILD_CACHE_DIR: cacheDir,
      // A permissive umask: without explicit modes the dir would be 0755 and the files 0644.
      CHILD_UMASK: '022',
    };
  });
  afterAll(async () => {
    await chmod(cacheDir, 0o700).catch(() => {});
    await rm(root, { recursive: true, force: true });
  });

  it('8 processes on a fresh dir all succeed and leave private, complete files', async () => {
    const results = await runConcurrently(8, env);
    const failures = results.filter((result) => result.status === 'rejected');
    expect(failures.map((failure) => String((failure as PromiseRejectedResult).reason))).toEqual([]);
    for (const result of results) {
      const { stdout } = (result as PromiseFulfilledResult<{ stdout: string }>).value;
      expect(JSON.parse(stdout)).toMatchObject({ asn: 13335 });
    }
    // The created dirs are 0700, the files 0600, and no temporary file is left behind.
    expect((await stat(join(root, 'svc'))).mode & 0o777).toBe(0o700);
    const files = await snapshot(cacheDir);
    expect((await stat(cacheDir)).mode & 0o777).toBe(0o700);
    expect(files.map((file) => file.name)).toEqual([
      expect.stringMatching(/^asn-\d+\.mmdb$/),
      'verified.json',
    ]);
    for (const file of files) expect(file.mode, file.name).toBe(0o600);
  }, 90_000);

  it('8 processes on the compiled dir, made read-only, all succeed and rewrite nothing', async () => {
    const before = await snapshot(cacheDir);
    for (const file of before) await chmod(join(cacheDir, file.name), 0o400);
    await chmod(cacheDir, 0o500);
    try {
      const results = await runConcurrently(8, env);
      const failures = results.filter((result) => result.status === 'rejected');
      expect(failures.map((failure) => String((failure as PromiseRejectedResult).reason))).toEqual([]);
      // Same files, same inodes, same times (root ignores the modes, so this is what proves it).
      const after = await snapshot(cacheDir);
      expect(after.map(({ name, ino, mtimeMs }) => ({ name, ino, mtimeMs }))).toEqual(
        before.map(({ name, ino, mtimeMs }) => ({ name, ino, mtimeMs })),
      );
    } finally {
      await chmod(cacheDir, 0o700);
    }
  }, 90_000);
});
