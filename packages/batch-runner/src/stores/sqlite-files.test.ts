import { chmodSync, existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { geoJob } from '../testing/jobs.js';
import { createSqliteStore } from './sqlite.js';

// The usual umask, which leaves new files world-readable (0644) unless the code says otherwise.
let previousUmask: number;
beforeEach(() => {
  previousUmask = process.umask(0o022);
});
afterEach(() => {
  process.umask(previousUmask);
});

const mode = (path: string) => statSync(path).mode & 0o777;

it.each(['022', '002', '277'])(
  'creates the job database and its -wal and -shm files 0600 under umask %s',
  async (umask) => {
    process.umask(Number.parseInt(umask, 8));
    const path = join(mkdtempSync(join(tmpdir(), 'batch-mode-')), 'jobs.db');
    const store = await createSqliteStore({ path });
    try {
      const { job } = await store.createJob(geoJob('batch_mode'));
      expect(job.total).toBe(1);
      for (const file of [path, `${path}-wal`, `${path}-shm`]) {
        expect(existsSync(file), file).toBe(true);
        expect(mode(file).toString(8), file).toBe('600');
      }
    } finally {
      await store.close();
    }
  },
);

it('leaves the mode of an existing database alone', async () => {
  const path = join(mkdtempSync(join(tmpdir(), 'batch-mode-')), 'jobs.db');
  await (await createSqliteStore({ path })).close();
  chmodSync(path, 0o640);
  await (await createSqliteStore({ path })).close();
  expect(mode(path).toString(8)).toBe('640');
});
