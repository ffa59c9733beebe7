import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect, it } from 'vitest';
import type { NewJob } from '../store.js';
import { createSqliteStore, INSERT_SLICE_RECORDS } from './sqlite.js';

const dir = mkdtempSync(join(tmpdir(), 'batch-slices-'));
const newJob = (id: string, records: number, overrides: Partial<NewJob> = {}): NewJob => ({
  id,
  type: 'verify_email',
  records: Array.from({ length: records }, (_, index) => `user${index}@example.test`),
  webhook_url: null,
  idempotency_key: null,
  request_hash: null,
  chunkSize: 250,
  now: new Date('2026-11-27T10:00:00Z'),
  ...overrides,
});

it('inserts a big job in slices with the event loop free between them, and shows it only whole', async () => {
  const store = await createSqliteStore({ path: join(dir, 'slices.db') });
  const slices = 12;
  // Turns of the event loop while createJob runs, and what a reader saw at each.
  const seen: Array<{ job: unknown; claim: unknown }> = [];
  let inserting = true;
  const watch = () =>
    setImmediate(async () => {
      if (!inserting) return;
      seen.push({ job: await store.getJob('batch_big'), claim: await store.claimChunk('w', 1, 1000) });
      watch();
    });
  watch();
  const { job, created } = await store.createJob(newJob('batch_big', INSERT_SLICE_RECORDS * slices));
  inserting = false;
  expect(created).toBe(true);
  expect(job.total).toBe(INSERT_SLICE_RECORDS * slices);
  // One turn at least between each two slices; nothing of the job visible until it was whole.
  expect(seen.length).toBeGreaterThanOrEqual(slices - 1);
  expect(seen.every((entry) => entry.job === null && entry.claim === null)).toBe(true);
  const lease = await store.claimChunk('w', 2, 1000);
  expect(lease?.records.at(-1)).toEqual({ index: 249, input: 'user249@example.test' });
  await store.close();
});

it('a retried key inserts nothing, and records a dead process left mid-insert are removed on the next open', async () => {
  const path = join(dir, 'abandoned.db');
  const store = await createSqliteStore({ path });
  const first = await store.createJob(newJob('batch_first', 10, { idempotency_key: 'k' }));
  expect(await store.createJob(newJob('batch_retry', 3000, { idempotency_key: 'k' }))).toEqual({
    job: first.job,
    created: false,
  });
  await store.close();
  // What a process killed between two slices leaves: some records, a marker, no job row.
  const raw = new Database(path);
  const countOf = (id: string) =>
    (raw.prepare('SELECT count(*) AS n FROM records WHERE job_id = ?').get(id) as { n: number }).n;
  expect(countOf('batch_retry')).toBe(0);
  const insert = raw.prepare('INSERT INTO records (job_id, idx, input) VALUES (?, ?, ?)');
  for (const [id, startedAt] of [
    ['batch_dead', Date.now() - 11 * 60_000],
    ['batch_busy', Date.now()],
  ] as const) {
    raw.prepare('INSERT INTO inserting (job_id, started_at) VALUES (?, ?)').run(id, startedAt);
    for (let index = 0; index < 5; index++) insert.run(id, index, `x${index}`);
  }
  const reopened = await createSqliteStore({ path });
  // Ten minutes old: abandoned. A fresh one may be another process's insert in progress.
  expect(countOf('batch_dead')).toBe(0);
  expect(countOf('batch_busy')).toBe(5);
  expect(await reopened.getJob(first.job.id)).toEqual(first.job);
  raw.close();
  await reopened.close();
});
