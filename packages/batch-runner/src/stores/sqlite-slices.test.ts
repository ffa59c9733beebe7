import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect, it, vi } from 'vitest';
import type { NewJob } from '../store.js';
import { createSqliteStore, INSERT_SLICE_RECORDS } from './sqlite.js';

let atEachYield = () => {};
vi.mock('../yield.js', async (original) => {
  const actual = await original<typeof import('../yield.js')>();
  return {
    yieldToEventLoop: () => {
      atEachYield();
      return actual.yieldToEventLoop();
    },
  };
});

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
  const path = join(dir, 'slices.db');
  const store = await createSqliteStore({ path });
  const reader = new Database(path, { readonly: true });
  const recordsIn = reader.prepare<[], { n: number }>(
    "SELECT count(*) AS n FROM records WHERE job_id = 'batch_big'",
  );
  const slices = 12;
  // The records committed whenever the store gives the event loop a turn.
  atEachYield = () => committed.push((recordsIn.get() as { n: number }).n);
  const committed: number[] = [];
  // What the store showed of the job at turns of the event loop while createJob ran.
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
  atEachYield = () => {};
  expect(created).toBe(true);
  expect(job.total).toBe(INSERT_SLICE_RECORDS * slices);
  // Whole slices, each committed before a turn of the event loop.
  expect(committed).toEqual(
    Array.from({ length: slices - 1 }, (_, slice) => (slice + 1) * INSERT_SLICE_RECORDS),
  );
  // Nothing of the job visible until it was whole.
  expect(seen.length).toBeGreaterThan(0);
  expect(seen.every((entry) => entry.job === null && entry.claim === null)).toBe(true);
  const lease = await store.claimChunk('w', 2, 1000);
  expect(lease?.records.at(-1)).toEqual({ index: 249, input: 'user249@example.test' });
  reader.close();
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

it("a big job's records are all there, in order, checkpointed into the database file by the worker", async () => {
  const path = join(dir, 'checkpointed.db');
  const store = await createSqliteStore({ path });
  const total = INSERT_SLICE_RECORDS * 12 + 7;
  const { job } = await store.createJob(newJob('batch_ordered', total, { chunkSize: 1000 }));
  const seen: Array<{ index: number; input: string }> = [];
  for (
    let lease = await store.claimChunk('w', 1, 1000);
    lease;
    lease = await store.claimChunk('w', 1, 1000)
  ) {
    seen.push(...lease.records);
    const results = lease.records.map(({ index, input }) => ({
      index,
      input,
      ok: true as const,
      result: {},
    }));
    expect(await store.commitChunk(lease, results, 2)).toBe('committed');
  }
  expect(seen).toEqual(
    Array.from({ length: total }, (_, index) => ({ index, input: `user${index}@example.test` })),
  );
  expect((await store.getJob(job.id))?.status).toBe('completed');
  // Far below SQLite's automatic checkpoint (1,000 pages): before, the database file kept only
  // the schema until the store closed; the worker copies the WAL into it while the store is open.
  const size = (suffix = '') => statSync(`${path}${suffix}`, { throwIfNoEntry: false })?.size ?? 0;
  expect(size('-wal')).toBeLessThan(1000 * 4096);
  await vi.waitFor(() => expect(size()).toBeGreaterThan(500 * 1024), { timeout: 5000 });
  await store.close();
  // The worker's connection closed first: the store's, the last one, removed the WAL.
  expect(size('-wal')).toBe(0);
  const reopened = await createSqliteStore({ path });
  const page = await reopened.results(job.id, { cursor: null, limit: 1000 });
  expect(page.data.map((result) => result.index)).toEqual(Array.from({ length: 1000 }, (_, index) => index));
  await reopened.close();
});
