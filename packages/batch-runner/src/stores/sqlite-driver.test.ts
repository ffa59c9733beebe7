import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { geoJob } from '../testing/jobs.js';
import { createSqliteStore } from './sqlite.js';

const dir = mkdtempSync(join(tmpdir(), 'batch-driver-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A global npm install of the svc CLI puts better-sqlite3 under the CLI, where this package's
// own import('better-sqlite3') cannot find it: the CLI hands its copy over as `driver`.
it('opens the database with the better-sqlite3 passed as `driver`', async () => {
  const opened: string[] = [];
  class CountingDatabase extends BetterSqlite3 {
    constructor(path: string, options?: BetterSqlite3.Options) {
      super(path, options);
      opened.push(path);
    }
  }
  const path = join(dir, 'jobs.db');
  const store = await createSqliteStore({ path, driver: CountingDatabase as typeof BetterSqlite3 });
  const { job } = await store.createJob(geoJob('batch_driver'));
  expect(job.total).toBe(1);
  expect(opened).toEqual([path]);
  await store.close();
});
