import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect, it } from 'vitest';
import { geoJob } from '../testing/jobs.js';
import { createSqliteStore } from './sqlite.js';

it('opens a database written before jobs could fail, adding the columns it lacks', async () => {
  const path = join(mkdtempSync(join(tmpdir(), 'batch-migrate-')), 'old.db');
  // The jobs table as the first release wrote it (no abandoned / abandon_reason columns).
  const old = new Database(path);
  old.exec(`CREATE TABLE jobs (
    id TEXT PRIMARY KEY, type TEXT NOT NULL, status TEXT NOT NULL, total INTEGER NOT NULL,
    processed INTEGER NOT NULL DEFAULT 0, failed INTEGER NOT NULL DEFAULT 0, counts TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL, started_at TEXT, completed_at TEXT, webhook_url TEXT,
    idempotency_key TEXT UNIQUE, error TEXT, chunks_left INTEGER NOT NULL)`);
  old
    .prepare(
      `INSERT INTO jobs (id, type, status, total, processed, counts, created_at, completed_at, chunks_left)
       VALUES ('batch_old', 'geo_ip', 'completed', 1, 1, '{"ok":1}', '2026-11-01T00:00:00.000Z', '2026-11-01T00:00:01.000Z', 0)`,
    )
    .run();
  old.close();

  const store = await createSqliteStore({ path });
  expect(await store.getJob('batch_old')).toMatchObject({
    status: 'completed',
    counts: { ok: 1 },
    error: null,
  });
  expect(await store.getJob('batch_old')).not.toHaveProperty('abandoned');
  expect((await store.getJob('batch_old'))?.request_hash).toBeNull();
  const { job } = await store.createJob(geoJob('batch_new'));
  const lease = await store.claimChunk('a', 1, 1000);
  const error = { code: 'processing_failed', message: 'gave up' };
  await store.commitChunk(lease!, [{ index: 0, input: '8.8.8.8', ok: false, error, abandoned: true }], 2);
  expect(await store.getJob(job.id)).toMatchObject({
    status: 'failed',
    error: { code: 'processing_failed' },
  });
  await store.close();
});

it('rebuilds a jobs table of before accounts: old jobs keep their data and key, keys become per account', async () => {
  const path = join(mkdtempSync(join(tmpdir(), 'batch-migrate-')), 'before-accounts.db');
  // The jobs table as the release before accounts wrote it: UNIQUE(idempotency_key) over every job.
  const old = new Database(path);
  old.exec(`CREATE TABLE jobs (
    id TEXT PRIMARY KEY, type TEXT NOT NULL, status TEXT NOT NULL, total INTEGER NOT NULL,
    processed INTEGER NOT NULL DEFAULT 0, failed INTEGER NOT NULL DEFAULT 0, counts TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL, started_at TEXT, completed_at TEXT, webhook_url TEXT,
    idempotency_key TEXT UNIQUE, error TEXT, chunks_left INTEGER NOT NULL,
    abandoned INTEGER NOT NULL DEFAULT 0, abandon_reason TEXT, request_hash TEXT)`);
  old
    .prepare(
      `INSERT INTO jobs (id, type, status, total, processed, counts, created_at, completed_at, chunks_left, idempotency_key, request_hash)
       VALUES ('batch_old', 'geo_ip', 'completed', 1, 1, '{"located":1}', '2026-11-01T00:00:00.000Z', '2026-11-01T00:00:01.000Z', 0, 'k1', 'h')`,
    )
    .run();
  old.close();

  const newJob = (id: string, account_id: string | null) => ({
    id,
    account_id,
    type: 'geo_ip' as const,
    records: ['8.8.8.8'],
    webhook_url: null,
    idempotency_key: 'k1',
    request_hash: 'h',
    chunkSize: 10,
    now: new Date(),
  });
  const store = await createSqliteStore({ path });
  expect(await store.getJob('batch_old')).toMatchObject({
    account_id: null,
    sandbox: false,
    status: 'completed',
    counts: { located: 1 },
    idempotency_key: 'k1',
  });
  // The old job still owns its key for jobs without an account; an account may reuse it.
  expect(await store.createJob(newJob('batch_again', null))).toMatchObject({
    created: false,
    job: { id: 'batch_old' },
  });
  expect(await store.createJob(newJob('batch_acct', 'acct_a'))).toMatchObject({
    created: true,
    job: { id: 'batch_acct', account_id: 'acct_a' },
  });
  await store.close();
  // A second open finds nothing to migrate and keeps everything.
  const again = await createSqliteStore({ path });
  expect((await again.listJobs({ limit: 10 })).data.map((job) => job.id)).toEqual([
    'batch_old',
    'batch_acct',
  ]);
  await again.close();
});
