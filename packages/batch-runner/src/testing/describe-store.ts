import { describe, expect, it } from 'vitest';
import type { NewJob, RecordResult, Store } from '../store.js';
import { ATTEMPT_IN_PROGRESS, ATTEMPT_INTERRUPTED } from '../stores/attempt-log.js';

/** Makes a fresh, empty store; `reopen` (when given) opens a second store on the same data. */
export interface StoreFactory {
  create(): Promise<Store>;
  reopen?: (store: Store) => Promise<Store>;
}

let counter = 0;
const newJob = (overrides: Partial<NewJob> = {}): NewJob => ({
  id: `batch_test${String(++counter).padStart(8, '0')}`,
  type: 'verify_email',
  records: Array.from({ length: 25 }, (_, index) => `user${index}@example.test`),
  webhook_url: null,
  idempotency_key: null,
  request_hash: null,
  chunkSize: 10,
  now: new Date('2026-11-23T10:00:00Z'),
  ...overrides,
});
const ok = (index: number, input: string, countKey: string): RecordResult => ({
  index,
  input,
  ok: true,
  result: { state: countKey },
  countKey,
});

/** The conformance suite every Store passes (memory, SQLite, and later Postgres). */
export function describeStore(name: string, factory: StoreFactory): void {
  describe(`Store conformance: ${name}`, () => {
    it('creates a queued job with its records in chunks, and finds it again', async () => {
      const store = await factory.create();
      const { job, created } = await store.createJob(newJob());
      expect(created).toBe(true);
      expect(job).toMatchObject({
        status: 'queued',
        total: 25,
        processed: 0,
        failed: 0,
        counts: {},
        started_at: null,
      });
      expect(await store.getJob(job.id)).toEqual(job);
      expect(await store.getJob('batch_nope')).toBeNull();
      await store.close();
    });

    it('returns the existing job for a repeated idempotency key', async () => {
      const store = await factory.create();
      const first = await store.createJob(newJob({ idempotency_key: `key-${counter}`, request_hash: 'abc' }));
      expect(first.job.request_hash).toBe('abc');
      const again = await store.createJob(newJob({ idempotency_key: first.job.idempotency_key }));
      expect(again).toEqual({ job: first.job, created: false });
      await store.close();
    });

    it('leases chunks in order, marks the job running, and commits results with counters atomically', async () => {
      const store = await factory.create();
      const { job } = await store.createJob(newJob());
      const sizes: number[] = [];
      for (
        let lease = await store.claimChunk('a', 1000, 5000);
        lease;
        lease = await store.claimChunk('a', 1000, 5000)
      ) {
        sizes.push(lease.records.length);
        expect(lease.attempts).toBe(0);
        const results = lease.records.map(({ index, input }) =>
          index % 5 === 0
            ? { index, input, ok: false, error: { code: 'bad', message: 'no' } }
            : ok(index, input, index % 2 ? 'deliverable' : 'risky'),
        );
        expect(await store.commitChunk(lease, results, 2000)).toBe('committed');
        if (sizes.length === 1) expect((await store.getJob(job.id))?.status).toBe('running');
      }
      expect(sizes).toEqual([10, 10, 5]);
      const done = await store.getJob(job.id);
      expect(done).toMatchObject({ status: 'completed', processed: 25, failed: 5 });
      // 20 successes (every fifth record failed): 10 odd indices deliverable, 10 even risky.
      expect(done?.counts).toEqual({ deliverable: 10, risky: 10 });
      expect(done?.started_at).not.toBeNull();
      expect(done?.completed_at).not.toBeNull();
      await store.close();
    });

    it('ends a job with abandoned records as failed, with an error and a batch.failed event', async () => {
      const store = await factory.create();
      const { job } = await store.createJob(
        newJob({
          records: ['a@x.test', 'b@x.test', 'c@x.test'],
          chunkSize: 2,
          webhook_url: 'https://h.test/x',
        }),
      );
      const first = await store.claimChunk('a', 1000, 5000);
      const gaveUp = { code: 'processing_failed', message: 'its chunk failed 5 times' };
      await store.commitChunk(
        first!,
        first!.records.map(({ index, input }) => ({
          index,
          input,
          ok: false,
          error: gaveUp,
          abandoned: true,
        })),
        2000,
      );
      // Not finished yet: the error appears when the job ends, not while it runs.
      expect(await store.getJob(job.id)).toMatchObject({ status: 'running', error: null, failed: 2 });
      const second = await store.claimChunk('a', 2000, 5000);
      await store.commitChunk(second!, [ok(2, 'c@x.test', 'deliverable')], 3000);
      expect(await store.getJob(job.id)).toMatchObject({
        status: 'failed',
        processed: 3,
        failed: 2,
        counts: { deliverable: 1 },
        error: {
          code: 'processing_failed',
          message: '2 of 3 records could not be processed: its chunk failed 5 times',
        },
      });
      expect((await store.deliveries(job.id)).map((event) => event.type)).toEqual(['batch.failed']);
      expect((await store.results(job.id, { limit: 10 })).data[0]).toMatchObject({ abandoned: true });
      await store.close();
    });

    it('lets another owner reclaim an expired lease and refuses the stale owner’s commit', async () => {
      const store = await factory.create();
      const { job } = await store.createJob(newJob({ records: ['a@x.test', 'b@x.test'], chunkSize: 2 }));
      const first = await store.claimChunk('dead', 1000, 100);
      expect(await store.claimChunk('other', 1050, 100)).toBeNull(); // still leased
      const second = await store.claimChunk('other', 1200, 100);
      expect(second).toMatchObject({ jobId: job.id, chunk: 0, owner: 'other', attempts: 1 });
      const results = [ok(0, 'a@x.test', 'deliverable'), ok(1, 'b@x.test', 'deliverable')];
      expect(await store.commitChunk(first!, results, 1250)).toBe('lost_lease');
      expect(await store.renewLease(first!, 1250, 100)).toBe(false);
      expect(await store.renewLease(second!, 1250, 100)).toBe(true);
      expect(await store.commitChunk(second!, results, 1300)).toBe('committed');
      expect(await store.getJob(job.id)).toMatchObject({
        processed: 2,
        counts: { deliverable: 2 },
        status: 'completed',
      });
      await store.close();
    });

    it('releases a chunk for a retry after a delay', async () => {
      const store = await factory.create();
      await store.createJob(newJob({ records: ['a@x.test'], chunkSize: 5 }));
      const lease = await store.claimChunk('a', 1000, 5000);
      await store.releaseChunk(lease!, 3000);
      expect(await store.claimChunk('a', 2000, 5000)).toBeNull();
      expect((await store.claimChunk('a', 3000, 5000))?.attempts).toBe(1);
      await store.close();
    });

    it('cancels: no further chunks are handed out and late commits are refused', async () => {
      const store = await factory.create();
      const { job } = await store.createJob(newJob());
      const lease = await store.claimChunk('a', 1000, 5000);
      expect((await store.cancelJob(job.id, 1100))?.status).toBe('cancelled');
      expect(await store.claimChunk('a', 1200, 5000)).toBeNull();
      expect(await store.commitChunk(lease!, [ok(0, 'x', 'deliverable')], 1300)).toBe('lost_lease');
      expect(await store.cancelJob('batch_nope', 1)).toBeNull();
      await store.close();
    });

    it('pages results in record order and jobs newest first', async () => {
      const store = await factory.create();
      const older = await store.createJob(newJob());
      const { job } = await store.createJob(newJob());
      for (
        let lease = await store.claimChunk('a', 1, 10_000);
        lease;
        lease = await store.claimChunk('a', 1, 10_000)
      ) {
        await store.commitChunk(
          lease,
          lease.records.map(({ index, input }) => ok(index, input, 'deliverable')),
          2,
        );
      }
      const seen: number[] = [];
      let cursor: string | null = null;
      do {
        const page = await store.results(job.id, { cursor, limit: 7 });
        seen.push(...page.data.map((result) => result.index));
        expect(page.has_more).toBe(page.next_cursor !== null);
        cursor = page.next_cursor;
      } while (cursor);
      expect(seen).toEqual(Array.from({ length: 25 }, (_, index) => index));
      const jobs = await store.listJobs({ limit: 1 });
      expect(jobs.data[0]?.id).toBe(job.id);
      const next = await store.listJobs({ cursor: jobs.next_cursor, limit: 10 });
      expect(next.data.map((entry) => entry.id)).toContain(older.job.id);
      await store.close();
    });

    it('scopes jobs by owning account: reads, lists and cancels of another account find nothing', async () => {
      const store = await factory.create();
      const mine = await store.createJob(newJob({ account_id: 'acct_a' }));
      const theirs = await store.createJob(newJob({ account_id: 'acct_b' }));
      const unowned = await store.createJob(newJob());
      expect(mine.job.account_id).toBe('acct_a');
      expect(unowned.job.account_id).toBeNull();
      expect(mine.job.sandbox).toBe(false);
      const sandboxed = await store.createJob(newJob({ account_id: 'acct_c', sandbox: true }));
      expect(sandboxed.job.sandbox).toBe(true);
      expect((await store.getJob(sandboxed.job.id))?.sandbox).toBe(true);
      expect(await store.getJob(mine.job.id, { accountId: 'acct_a' })).toEqual(mine.job);
      expect(await store.getJob(theirs.job.id, { accountId: 'acct_a' })).toBeNull();
      expect(await store.getJob(unowned.job.id, { accountId: 'acct_a' })).toBeNull();
      // No scope: everything (the CLI and libraries have no accounts).
      expect(await store.getJob(theirs.job.id)).toEqual(theirs.job);
      const listed = await store.listJobs({ limit: 100, accountId: 'acct_a' });
      expect(listed.data.map((job) => job.id)).toEqual([mine.job.id]);
      expect(listed.has_more).toBe(false);
      const all = (await store.listJobs({ limit: 100 })).data.map((job) => job.id);
      expect(all).toEqual(expect.arrayContaining([mine.job.id, theirs.job.id, unowned.job.id]));
      expect(await store.cancelJob(theirs.job.id, 5000, { accountId: 'acct_a' })).toBeNull();
      expect((await store.getJob(theirs.job.id))?.status).toBe('queued');
      expect((await store.cancelJob(mine.job.id, 5000, { accountId: 'acct_a' }))?.status).toBe('cancelled');
      await store.close();
    });

    it('pages one account’s jobs newest first with a cursor', async () => {
      const store = await factory.create();
      const ids: string[] = [];
      for (let index = 0; index < 5; index++) {
        ids.push((await store.createJob(newJob({ account_id: 'acct_pages' }))).job.id);
        await store.createJob(newJob({ account_id: 'acct_other' }));
      }
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await store.listJobs({ cursor, limit: 2, accountId: 'acct_pages' });
        seen.push(...page.data.map((job) => job.id));
        cursor = page.next_cursor;
      } while (cursor);
      expect(seen).toEqual([...ids].reverse());
      await store.close();
    });

    it('keeps idempotency keys per account', async () => {
      const store = await factory.create();
      const key = `shared-${counter}`;
      const a = await store.createJob(newJob({ account_id: 'acct_a', idempotency_key: key }));
      const b = await store.createJob(newJob({ account_id: 'acct_b', idempotency_key: key }));
      const none = await store.createJob(newJob({ idempotency_key: key }));
      expect([a.created, b.created, none.created]).toEqual([true, true, true]);
      expect(new Set([a.job.id, b.job.id, none.job.id]).size).toBe(3);
      expect(await store.createJob(newJob({ account_id: 'acct_b', idempotency_key: key }))).toEqual({
        job: b.job,
        created: false,
      });
      expect((await store.createJob(newJob({ idempotency_key: key }))).job.id).toBe(none.job.id);
      await store.close();
    });

    it('lists a job’s events with their attempts, and leases one event for a resend', async () => {
      const store = await factory.create();
      const { job } = await store.createJob(
        newJob({ account_id: 'acct_ev', records: ['a'], chunkSize: 1, webhook_url: 'https://h.test/x' }),
      );
      const lease = await store.claimChunk('w', 1000, 5000);
      await store.commitChunk(lease!, [ok(0, 'a', 'deliverable')], 2000);
      const delivery = await store.claimDelivery('d', 2000, 5000);
      expect(delivery).toMatchObject({ jobId: job.id, accountId: 'acct_ev', attempts: 0 });
      // Leased by the scheduled deliverer: a resend must wait.
      expect(await store.claimEvent(delivery!.eventId, 'r', 2100, 5000)).toBe('busy');
      await store.recordAttempt(
        delivery!,
        { at: 2000, status: 500, latencyMs: 3, error: null },
        { state: 'failed' },
      );
      const [event] = await store.deliveries(job.id);
      expect(event).toEqual({
        eventId: delivery!.eventId,
        jobId: job.id,
        type: 'batch.completed',
        url: 'https://h.test/x',
        created: 2,
        state: 'failed',
        nextAttemptAt: null,
        attempts: [{ at: 2000, status: 500, latencyMs: 3, error: null }],
      });
      expect(await store.getEvent(delivery!.eventId, { accountId: 'acct_ev' })).toEqual(event);
      expect(await store.getEvent(delivery!.eventId, { accountId: 'acct_x' })).toBeNull();
      expect(await store.claimEvent(delivery!.eventId, 'r', 3000, 5000, { accountId: 'acct_x' })).toBeNull();
      expect(await store.claimEvent('evt_nope', 'r', 3000, 5000)).toBeNull();
      // A failed event is never claimed by the schedule again, but a resend leases it.
      expect(await store.claimDelivery('d', 10_000_000, 5000)).toBeNull();
      const resend = await store.claimEvent(delivery!.eventId, 'r', 3000, 5000, { accountId: 'acct_ev' });
      expect(resend).toMatchObject({ eventId: delivery!.eventId, resendOf: 'failed', attempts: 1 });
      if (resend === 'busy' || !resend) throw new Error('expected a lease');
      await store.recordAttempt(
        resend,
        { at: 3000, status: 200, latencyMs: 4, error: null, trigger: 'resend' },
        { state: 'delivered' },
      );
      expect(await store.getEvent(delivery!.eventId)).toMatchObject({
        state: 'delivered',
        attempts: [{ status: 500 }, { status: 200, trigger: 'resend' }],
      });
      await store.close();
    });

    it('refuses a job past its quota (jobs a day, records in flight) atomically, counting only the account’s jobs of its kind', async () => {
      const store = await factory.create();
      const now = new Date('2026-11-27T10:00:00Z');
      const dayStart = Date.parse('2026-11-27T00:00:00Z');
      const quota = { jobsPerDay: 2, dayStart, recordsInFlight: 30 };
      const sandboxJob = (overrides: Partial<NewJob> = {}) =>
        newJob({ account_id: 'acct_q', sandbox: true, now, quota, records: ['a', 'b'], ...overrides });
      // Yesterday's job, a live job and another account's do not count.
      await store.createJob(sandboxJob({ now: new Date('2026-11-26T23:59:59Z'), quota: undefined }));
      await store.createJob(sandboxJob({ sandbox: false, quota: undefined }));
      await store.createJob(sandboxJob({ account_id: 'acct_other', quota: undefined }));
      const first = await store.createJob(
        sandboxJob({ records: Array.from({ length: 25 }, (_, i) => `r${i}`) }),
      );
      expect(first.created).toBe(true);
      // 25 records waiting: 10 more do not fit in 30.
      await expect(
        store.createJob(sandboxJob({ records: Array.from({ length: 10 }, (_, i) => `s${i}`) })),
      ).rejects.toMatchObject({
        code: 'rate_limited',
        retryAfterSeconds: 30,
      });
      // Processed records no longer count: with 10 of the 25 done, 10 more fit (yesterday's 2
      // records wait too: its job is the account's and of the kind).
      while (((await store.getJob(first.job.id))?.processed ?? 0) < 10) {
        const lease = await store.claimChunk('w', 1000, 5000);
        await store.commitChunk(
          lease!,
          lease!.records.map(({ index, input }) => ok(index, input, 'x')),
          2000,
        );
      }
      const second = await store.createJob(
        sandboxJob({
          idempotency_key: `q-${counter}`,
          records: Array.from({ length: 10 }, (_, i) => `s${i}`),
        }),
      );
      expect(second.created).toBe(true);
      // Two today: the third is refused until the next UTC day (14 h from 10:00)…
      await expect(store.createJob(sandboxJob())).rejects.toMatchObject({
        code: 'rate_limited',
        retryAfterSeconds: 14 * 3600,
      });
      // …but a retried key still gets its job back, and a job larger than the limit itself is a bad request.
      expect(await store.createJob(sandboxJob({ idempotency_key: second.job.idempotency_key }))).toEqual({
        job: second.job,
        created: false,
      });
      await expect(
        store.createJob(
          sandboxJob({ account_id: 'acct_big', records: Array.from({ length: 31 }, (_, i) => `b${i}`) }),
        ),
      ).rejects.toMatchObject({ code: 'invalid_request' });
      // Concurrent creates of one account cannot all pass: one of three fits a limit of one.
      const racing = await Promise.allSettled(
        [1, 2, 3].map(() =>
          store.createJob(sandboxJob({ account_id: 'acct_race', quota: { ...quota, jobsPerDay: 1 } })),
        ),
      );
      expect(racing.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      expect((await store.listJobs({ limit: 10, accountId: 'acct_race' })).data).toHaveLength(1);
      await store.close();
    });

    it('deletes finished jobs of one kind past their retention with everything they had, keeping those with events pending', async () => {
      const store = await factory.create();
      const finish = async (job: NewJob, at: number) => {
        const { job: created } = await store.createJob(job);
        for (
          let lease = await store.claimChunk('w', at, 5000);
          lease;
          lease = await store.claimChunk('w', at, 5000)
        )
          await store.commitChunk(
            lease,
            lease.records.map(({ index, input }) => ok(index, input, 'x')),
            at,
          );
        return created.id;
      };
      const day = 86_400_000;
      const t0 = Date.parse('2026-11-20T00:00:00Z');
      const records = Array.from({ length: 2500 }, (_, index) => `r${index}`);
      const oldSandbox = await finish(
        newJob({ sandbox: true, records, chunkSize: 1000, idempotency_key: `ret-${counter}` }),
        t0,
      );
      const oldLive = await finish(newJob(), t0);
      const newSandbox = await finish(newJob({ sandbox: true }), t0 + 2 * day);
      // Finished with a webhook that is still being retried: kept until the event is done.
      const hooked = await finish(newJob({ sandbox: true, webhook_url: 'https://h.test/x' }), t0);
      // Not finished: never deleted, however old.
      const { job: running } = await store.createJob(newJob({ sandbox: true, now: new Date(t0) }));
      const cancelled = (await store.cancelJob(
        (
          await store.createJob(newJob({ sandbox: true }))
        ).job.id,
        t0,
      )) as { id: string };
      const cutoff = t0 + day;
      expect(await store.deleteFinishedJobs({ finishedBefore: cutoff, sandbox: true, limit: 1 })).toBe(1);
      expect(await store.deleteFinishedJobs({ finishedBefore: cutoff, sandbox: true, limit: 10 })).toBe(1);
      expect(await store.deleteFinishedJobs({ finishedBefore: cutoff, sandbox: true, limit: 10 })).toBe(0);
      for (const id of [oldSandbox, cancelled.id]) {
        expect(await store.getJob(id)).toBeNull();
        expect((await store.results(id, { limit: 10 })).data).toEqual([]);
        expect(await store.deliveries(id)).toEqual([]);
      }
      for (const id of [oldLive, newSandbox, hooked, running.id])
        expect(await store.getJob(id)).not.toBeNull();
      // The deleted job's idempotency key is free again.
      expect((await store.createJob(newJob({ idempotency_key: `ret-${counter - 6}` }))).created).toBe(true);
      // The event done, its job goes too; live jobs only with sandbox false.
      const delivery = await store.claimDelivery('d', t0, 5000);
      expect(await store.beginAttempt(delivery!, { at: t0 })).toBe(true);
      await store.recordAttempt(
        delivery!,
        { at: t0, status: 200, latencyMs: 1, error: null },
        { state: 'delivered' },
      );
      expect(await store.deleteFinishedJobs({ finishedBefore: cutoff, sandbox: true, limit: 10 })).toBe(1);
      expect(await store.getEvent(delivery!.eventId)).toBeNull();
      expect(await store.deleteFinishedJobs({ finishedBefore: cutoff, sandbox: false, limit: 10 })).toBe(1);
      expect(await store.getJob(oldLive)).toBeNull();
      await store.close();
    });

    it('logs an attempt before it is sent: one left in progress by a dead deliverer stays, closed as interrupted', async () => {
      const store = await factory.create();
      const { job } = await store.createJob(
        newJob({ account_id: 'acct_at', records: ['a'], chunkSize: 1, webhook_url: 'https://h.test/x' }),
      );
      const lease = await store.claimChunk('w', 1000, 5000);
      await store.commitChunk(lease!, [ok(0, 'a', 'deliverable')], 2000);
      const first = await store.claimDelivery('dead', 2000, 60_000);
      expect(await store.beginAttempt(first!, { at: 2000 })).toBe(true);
      // Sent, then the deliverer died before recording the outcome: the attempt is in the log.
      const [during] = await store.deliveries(job.id);
      expect(during?.attempts).toEqual([
        { at: 2000, status: null, latencyMs: 0, error: ATTEMPT_IN_PROGRESS, inProgress: true },
      ]);
      expect(during?.state).toBe('pending');
      // Not claimable again until the dead deliverer's lease ends; then it counts as an attempt made.
      expect(await store.claimDelivery('next', 30_000, 60_000)).toBeNull();
      const second = await store.claimDelivery('next', 62_001, 60_000);
      expect(second).toMatchObject({ eventId: first!.eventId, attempts: 1, firstAttemptAt: 2000 });
      // The dead deliverer's late writes change nothing.
      expect(await store.beginAttempt(first!, { at: 62_001 })).toBe(false);
      expect(await store.beginAttempt(second!, { at: 62_002 })).toBe(true);
      await store.recordAttempt(
        second!,
        { at: 62_002, status: 200, latencyMs: 7, error: null },
        { state: 'delivered' },
      );
      await store.recordAttempt(
        first!,
        { at: 2000, status: 200, latencyMs: 1, error: null },
        { state: 'delivered' },
      );
      expect(await store.getEvent(first!.eventId)).toMatchObject({
        state: 'delivered',
        attempts: [
          { at: 2000, status: null, latencyMs: 0, error: ATTEMPT_INTERRUPTED },
          { at: 62_002, status: 200, latencyMs: 7, error: null },
        ],
      });
      const attempts = (await store.getEvent(first!.eventId))?.attempts ?? [];
      expect(attempts.some((attempt) => 'inProgress' in attempt)).toBe(false);
      // A resend is begun and completed the same way, with its trigger.
      const resend = await store.claimEvent(first!.eventId, 'r', 70_000, 60_000);
      if (resend === 'busy' || !resend) throw new Error('expected a lease');
      expect(await store.beginAttempt(resend, { at: 70_000, trigger: 'resend' })).toBe(true);
      await store.recordAttempt(
        resend,
        { at: 70_000, status: 500, latencyMs: 2, error: null, trigger: 'resend' },
        { state: 'delivered' },
      );
      expect((await store.getEvent(first!.eventId))?.attempts).toHaveLength(3);
      expect((await store.getEvent(first!.eventId))?.attempts[2]).toEqual({
        at: 70_000,
        status: 500,
        latencyMs: 2,
        error: null,
        trigger: 'resend',
      });
      await store.close();
    });

    if (factory.reopen) {
      it('keeps everything across a reopen (durability)', async () => {
        const store = await factory.create();
        const { job } = await store.createJob(newJob({ records: ['a@x.test', 'b@x.test'], chunkSize: 1 }));
        const lease = await store.claimChunk('a', 1, 10_000);
        await store.commitChunk(lease!, [ok(0, 'a@x.test', 'deliverable')], 2);
        const reopened = await factory.reopen?.(store);
        expect(await reopened?.getJob(job.id)).toMatchObject({ status: 'running', processed: 1 });
        expect((await reopened?.claimChunk('b', 3, 10_000))?.records).toEqual([
          { index: 1, input: 'b@x.test' },
        ]);
        await reopened?.close();
      });
    }
  });
}
