import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BatchJob } from '@svc/core';
import { isPublicIp } from '@svc/ip-address';
import { startWebhookReceiver } from '@svc/testkit';
import { verifyPayload } from '@svc/webhooks';
import { afterEach, describe, expect, it } from 'vitest';
import type { Store } from '../store.js';
import { createMemoryStore } from '../stores/memory.js';
import { createSqliteStore } from '../stores/sqlite.js';
import { type ChunkDispatcher, storeDispatcher } from './chunk-dispatcher.js';
import type { Processor } from './processor.js';
import { type BatchRunner, createBatchRunner } from './runner.js';

const dir = mkdtempSync(join(tmpdir(), 'runner-'));
let file = 0;
const stores: Array<[string, () => Promise<Store>]> = [
  ['memory', async () => createMemoryStore()],
  ['SQLite', async () => createSqliteStore({ path: join(dir, `runner-${++file}.db`) })],
];

/**
 * Real asynchronous work; `bad` inputs fail alone, and chunks containing `flaky` throw `flakyTimes`
 * times. `holdUntilAborted`: each chunk is in flight until its signal is aborted.
 */
function testProcessor(
  options: { flakyTimes?: number; holdUntilAborted?: boolean; seen?: AbortSignal[] } = {},
): Processor {
  let flaky = options.flakyTimes ?? 0;
  return {
    type: 'verify_email',
    async process(records, { signal }) {
      options.seen?.push(signal);
      if (options.holdUntilAborted)
        await new Promise((resolve) => {
          if (signal.aborted) resolve(undefined);
          else signal.addEventListener('abort', resolve, { once: true });
        });
      else await new Promise(setImmediate);
      if (records.some((record) => record.input === 'flaky') && flaky-- > 0)
        throw new Error('upstream hiccup');
      return records.map(({ index, input }) =>
        input.startsWith('bad')
          ? { index, ok: false as const, error: { code: 'invalid', message: `${input} is bad` } }
          : {
              index,
              ok: true as const,
              result: { email: input, state: index % 2 ? 'deliverable' : 'risky' },
              countKey: index % 2 ? 'deliverable' : 'risky',
            },
      );
    },
  };
}

let runner: BatchRunner | undefined;
afterEach(async () => {
  await runner?.close({ timeoutMs: 100 });
  runner = undefined;
});

describe.each(stores)('batch runner on the %s store', (_name, makeStore) => {
  it('runs a 5,000-record job to completion with exact counters and every index once', async () => {
    const finished: BatchJob[] = [];
    runner = createBatchRunner({
      store: await makeStore(),
      processors: [testProcessor()],
      chunkSize: 200,
      concurrency: 3,
      onJobFinished: (job) => {
        finished.push(job);
      },
    });
    const records = Array.from({ length: 5000 }, (_, index) =>
      index % 100 === 7 ? `bad${index}` : `u${index}@x.test`,
    );
    const submitted = await runner.submit({ type: 'verify_email', records });
    expect(submitted).toMatchObject({ object: 'batch_job', status: 'queued', total: 5000, processed: 0 });
    runner.start();
    await runner.idle();
    const job = await runner.get(submitted.id);
    expect(job).toMatchObject({ status: 'completed', processed: 5000, failed: 50 });
    expect((job.counts.deliverable ?? 0) + (job.counts.risky ?? 0)).toBe(4950);
    expect(finished.map((entry) => entry.id)).toEqual([submitted.id]);
    const indices: number[] = [];
    let cursor: string | null = null;
    do {
      const page = await runner.results(submitted.id, { cursor, limit: 1000 });
      indices.push(...page.data.map((result) => result.index));
      cursor = page.next_cursor;
    } while (cursor);
    expect(indices).toEqual(Array.from({ length: 5000 }, (_, index) => index));
  });

  it('retries a chunk that throws, then succeeds; after maxAttempts fails its records and the job', async () => {
    runner = createBatchRunner({
      store: await makeStore(),
      processors: [testProcessor({ flakyTimes: 1 })],
      retryDelayMs: () => 5,
      pollIntervalMs: 5,
      maxAttempts: 3,
    });
    const recovered = await runner.submit({ type: 'verify_email', records: ['flaky', 'a@x.test'] });
    runner.start();
    // idle() means "nothing claimable now"; a chunk waiting for its retry is not claimable yet.
    await expect.poll(async () => (await runner?.get(recovered.id))?.status).toBe('completed');
    expect(await runner.get(recovered.id)).toMatchObject({ failed: 0, processed: 2, error: null });
    await runner.close();

    const store = await makeStore();
    const finished: BatchJob[] = [];
    runner = createBatchRunner({
      store,
      processors: [testProcessor({ flakyTimes: 99 })],
      retryDelayMs: () => 5,
      pollIntervalMs: 5,
      maxAttempts: 3,
      chunkSize: 2,
      onJobFinished: (job) => {
        finished.push(job);
      },
    });
    const doomed = await runner.submit({
      type: 'verify_email',
      records: ['flaky', 'b@x.test', 'c@x.test', 'bad1'],
      webhook_url: 'https://hooks.example.com/batch',
    });
    runner.start();
    await expect.poll(async () => (await runner?.get(doomed.id))?.status).toBe('failed');
    const page = await runner.results(doomed.id);
    const giveUp = {
      code: 'processing_failed',
      message: 'its chunk failed 3 times (last error: upstream hiccup)',
    };
    expect(page.data).toMatchObject([
      { index: 0, ok: false, error: giveUp, abandoned: true },
      { index: 1, ok: false, error: giveUp, abandoned: true },
      { index: 2, ok: true },
      // A record the processor judged bad is an ordinary per-record error, not a failed job.
      { index: 3, ok: false, error: { code: 'invalid' } },
    ]);
    expect(page.data[3]).not.toHaveProperty('abandoned');
    const job = await runner.get(doomed.id);
    expect(job).toMatchObject({
      status: 'failed',
      processed: 4,
      failed: 3,
      error: {
        code: 'processing_failed',
        message:
          '2 of 4 records could not be processed: its chunk failed 3 times (last error: upstream hiccup)',
      },
    });
    expect(job.completed_at).not.toBeNull();
    expect(finished.map((done) => done.status)).toEqual(['failed']);
    expect((await store.deliveries(doomed.id)).map((event) => event.type)).toEqual(['batch.failed']);
  });

  it('returns the same job for a retried request with the same idempotency key, refuses a different one', async () => {
    runner = createBatchRunner({ store: await makeStore(), processors: [testProcessor()] });
    const request = { type: 'verify_email', records: ['a@x.test', 'b@x.test'], idempotency_key: 'order-42' };
    const first = await runner.submit(request);
    expect(await runner.submit({ ...request, records: ['a@x.test', 'b@x.test'] })).toEqual(first);
    await expect(runner.submit({ ...request, records: ['a@x.test', 'c@x.test'] })).rejects.toMatchObject({
      code: 'invalid_request',
      message: `the idempotency key "order-42" was already used for a different request (job ${first.id})`,
    });
    await expect(
      runner.submit({ ...request, webhook_url: 'https://hooks.example.com/other' }),
    ).rejects.toMatchObject({ code: 'invalid_request' });
    // Without a key every submission is a new job.
    const { idempotency_key: _key, ...unkeyed } = request;
    expect((await runner.submit(unkeyed)).id).not.toBe((await runner.submit(unkeyed)).id);
  });

  it("keeps each account's jobs to itself: another account's job is not_found everywhere", async () => {
    runner = createBatchRunner({ store: await makeStore(), processors: [testProcessor()] });
    const request = { type: 'verify_email', records: ['a@x.test'], idempotency_key: 'same-key' };
    const a = await runner.submitJob({ ...request, account_id: 'acct_a' });
    const b = await runner.submitJob({ ...request, account_id: 'acct_b' });
    // One idempotency key, two accounts: two jobs; a retry by A gets A's job back, not new.
    expect([a.created, b.created]).toEqual([true, true]);
    expect(a.job.id).not.toBe(b.job.id);
    expect(await runner.submitJob({ ...request, account_id: 'acct_a' })).toEqual({
      job: a.job,
      created: false,
    });
    expect(a.job).not.toHaveProperty('account_id');
    runner.start();
    await runner.idle();
    const asA = { accountId: 'acct_a' };
    expect((await runner.get(a.job.id, asA)).status).toBe('completed');
    expect((await runner.list(asA)).data.map((job) => job.id)).toEqual([a.job.id]);
    expect((await runner.results(a.job.id, asA)).data).toHaveLength(1);
    for (const read of [
      () => runner!.get(b.job.id, asA),
      () => runner!.results(b.job.id, asA),
      () => runner!.export(b.job.id, 'csv', asA),
      () => runner!.cancel(b.job.id, asA),
      () => runner!.events(b.job.id, asA),
    ]) {
      await expect(read()).rejects.toMatchObject({ code: 'not_found' });
    }
    // Unscoped (the CLI): every job.
    expect((await runner.list()).data.map((job) => job.id).sort()).toEqual([a.job.id, b.job.id].sort());
    expect((await runner.get(b.job.id)).id).toBe(b.job.id);
  });

  it('tells processors which jobs are sandbox jobs; a sandbox retry is not a live request', async () => {
    const seen: Array<[string, boolean]> = [];
    runner = createBatchRunner({
      store: await makeStore(),
      processors: [
        {
          type: 'geo_ip',
          async process(records, { jobId, sandbox }) {
            seen.push([jobId, sandbox]);
            return records.map(({ index }) => ({ index, ok: true as const, result: {} }));
          },
        },
      ],
    });
    const live = await runner.submit({ type: 'geo_ip', records: ['1.1.1.1'], idempotency_key: 'k' });
    const sandbox = await runner.submit({ type: 'geo_ip', records: ['1.1.1.1'], sandbox: true });
    expect(sandbox).not.toHaveProperty('sandbox');
    await expect(
      runner.submit({ type: 'geo_ip', records: ['1.1.1.1'], idempotency_key: 'k', sandbox: true }),
    ).rejects.toMatchObject({ code: 'invalid_request' });
    runner.start();
    await runner.idle();
    expect(new Map(seen)).toEqual(
      new Map([
        [live.id, false],
        [sandbox.id, true],
      ]),
    );
  });

  it('runs chunks that never wait (a sandbox job) one per turn of the event loop, sandbox chunks of at most 100', async () => {
    const sizes: Array<[boolean, number]> = [];
    // No await inside: the chunk's work, claim and commit never give the event loop a turn.
    const processor: Processor = {
      type: 'verify_email',
      chunkSize: 1000,
      process: async (records, { sandbox }) => {
        sizes.push([sandbox, records.length]);
        return records.map(({ index }) => ({ index, ok: true as const, result: {}, countKey: 'ok' }));
      },
    };
    runner = createBatchRunner({ store: await makeStore(), processors: [processor], concurrency: 4 });
    const records = Array.from({ length: 2000 }, (_, index) => `u${index}@x.test`);
    const sandbox = await runner.submit({ type: 'verify_email', records, sandbox: true });
    let turns = 0;
    let counting = true;
    const count = () =>
      setImmediate(() => {
        if (!counting) return;
        turns++;
        count();
      });
    count();
    runner.start();
    await runner.idle();
    counting = false;
    expect(await runner.get(sandbox.id)).toMatchObject({ status: 'completed', processed: 2000 });
    // 20 chunks of 100 (the processor's 1,000 is for live SMTP sessions), each in a turn of its own.
    expect(sizes).toEqual(Array.from({ length: 20 }, () => [true, 100]));
    expect(turns).toBeGreaterThanOrEqual(20);
    // A live job keeps the processor's chunk size.
    sizes.length = 0;
    await runner.submit({ type: 'verify_email', records });
    await expect.poll(() => sizes.length).toBe(2);
    expect(sizes).toEqual([
      [false, 1000],
      [false, 1000],
    ]);
  });

  it('paces sandbox chunks (one at a time, resting between them) with the same results as unpaced, every index once', async () => {
    // Each chunk waits for a timer, so four workers would run four sandbox chunks at once unpaced.
    const run = async (sandboxRestRatio?: number) => {
      let active = 0;
      let mostActive = 0;
      const processor: Processor = {
        type: 'verify_email',
        process: async (records) => {
          mostActive = Math.max(mostActive, ++active);
          await new Promise((resolve) => setTimeout(resolve, 1));
          active--;
          return records.map(({ index, input }) =>
            input.startsWith('bad')
              ? { index, ok: false as const, error: { code: 'invalid', message: `${input} is bad` } }
              : { index, ok: true as const, result: { email: input }, countKey: 'deliverable' },
          );
        },
      };
      runner = createBatchRunner({
        store: await makeStore(),
        processors: [processor],
        concurrency: 4,
        sandboxChunkSize: 10,
        ...(sandboxRestRatio !== undefined && { sandboxRestRatio }),
      });
      const records = Array.from({ length: 205 }, (_, index) =>
        index % 7 ? `u${index}@x.test` : `bad${index}`,
      );
      const job = await runner.submit({ type: 'verify_email', records, sandbox: true });
      runner.start();
      await runner.idle();
      const results = [];
      for (let cursor: string | null = null; ; ) {
        const page = await runner.results(job.id, { cursor, limit: 50 });
        results.push(...page.data);
        if (!page.next_cursor) break;
        cursor = page.next_cursor;
      }
      const {
        id: _id,
        created_at: _c,
        started_at: _s,
        completed_at: _d,
        ...finished
      } = await runner.get(job.id);
      await runner.close();
      return { mostActive, results, finished };
    };
    const paced = await run();
    const unpaced = await run(0);
    expect(paced.mostActive).toBe(1);
    expect(unpaced.mostActive).toBeGreaterThan(1);
    expect(paced.results.map(({ index }) => index)).toEqual(Array.from({ length: 205 }, (_, index) => index));
    expect(paced.results).toEqual(unpaced.results);
    expect(paced.finished).toEqual(unpaced.finished);
    expect(paced.finished).toMatchObject({ status: 'completed', processed: 205, failed: 30 });
  });

  it('refuses a sandboxRestRatio below 0', async () => {
    const store = await makeStore();
    for (const sandboxRestRatio of [-1, Number.NaN])
      expect(() => createBatchRunner({ store, processors: [testProcessor()], sandboxRestRatio })).toThrow(
        /sandboxRestRatio must be a number of at least 0/,
      );
  });

  it('passes a quota to the store with the UTC day of its clock', async () => {
    runner = createBatchRunner({
      store: await makeStore(),
      processors: [testProcessor()],
      now: () => Date.parse('2026-11-27T22:00:00Z'),
    });
    const request = {
      type: 'verify_email',
      records: ['a@x.test'],
      account_id: 'acct_q',
      sandbox: true,
      quota: { jobsPerDay: 1 },
    };
    await runner.submit(request);
    await expect(runner.submit(request)).rejects.toMatchObject({
      code: 'rate_limited',
      retryAfterSeconds: 2 * 3600,
    });
    // Without a quota (a live key) nothing is counted.
    await runner.submit({ ...request, quota: undefined });
  });

  it('finds work through a custom dispatcher: woken by submitted() instead of polling', async () => {
    const store = await makeStore();
    const base = storeDispatcher(store);
    let wake: (() => void) | undefined;
    const told: string[] = [];
    const dispatcher: ChunkDispatcher = {
      claim: (...args) => base.claim(...args),
      async submitted(job) {
        told.push(job.id);
        wake?.();
      },
      // A queue-backed dispatcher blocks on its queue; the runner's poll interval is not used.
      waitForWork: () =>
        new Promise((resolve) => {
          wake = () => resolve();
        }),
    };
    runner = createBatchRunner({ store, dispatcher, processors: [testProcessor()], pollIntervalMs: 60_000 });
    runner.start();
    await expect.poll(() => wake, { timeout: 5_000 }).toBeDefined(); // the workers are waiting on the dispatcher
    const job = await runner.submit({ type: 'verify_email', records: ['a@x.test', 'b@x.test'] });
    // The store poll is a minute away: a finished job means the dispatcher woke the workers.
    await expect.poll(async () => (await runner?.get(job.id))?.status, { timeout: 5_000 }).toBe('completed');
    expect(told).toEqual([job.id]);
    wake?.();
  });

  it('delivers the signed completion event itself when given webhooks settings', async () => {
    const receiver = await startWebhookReceiver();
    try {
      runner = createBatchRunner({
        store: await makeStore(),
        processors: [testProcessor()],
        pollIntervalMs: 5,
        webhooks: {
          secrets: ['whsec_runner'],
          isAllowedAddress: (ip) => ip === '127.0.0.1',
          pollIntervalMs: 10,
        },
      });
      const job = await runner.submit({
        type: 'verify_email',
        records: ['a@x.test', 'bad-b'],
        webhook_url: `${receiver.url}/hook`,
      });
      runner.start();
      const [delivery] = await receiver.waitFor(1, 5000);
      const event = verifyPayload(
        delivery?.body ?? '',
        String(delivery?.headers['x-service-signature']),
        'whsec_runner',
      );
      expect(event).toMatchObject({
        type: 'batch.completed',
        data: { object: { id: job.id, status: 'completed', processed: 2, failed: 1 } },
      });
    } finally {
      await runner?.close();
      runner = undefined;
      await receiver.close();
    }
  });

  it('passes the webhooks lookup to delivery: a name resolving to loopback is refused, or delivered when allowed', async () => {
    const receiver = await startWebhookReceiver();
    const { port } = new URL(receiver.url);
    const lookup = async () => [{ address: '127.0.0.1', family: 4 as const }];
    const deliverTo = async (isAllowedAddress: (ip: string) => boolean) => {
      const store = await makeStore();
      runner = createBatchRunner({
        store,
        processors: [testProcessor()],
        pollIntervalMs: 5,
        webhooks: { secrets: ['whsec_runner'], isAllowedAddress, lookup, pollIntervalMs: 10 },
      });
      const job = await runner.submit({
        type: 'verify_email',
        records: ['a@x.test'],
        webhook_url: `http://hooks.example.com:${port}/hook`,
      });
      runner.start();
      await expect
        .poll(async () => (await store.deliveries(job.id))[0]?.attempts.filter((a) => !a.inProgress).length, {
          timeout: 5000,
        })
        .toBeGreaterThanOrEqual(1);
      const [delivery] = await store.deliveries(job.id);
      await runner.close();
      runner = undefined;
      return delivery?.attempts[0];
    };
    try {
      expect(await deliverTo(isPublicIp)).toMatchObject({
        status: null,
        error: 'hooks.example.com resolves to 127.0.0.1, a private or reserved address',
      });
      expect(receiver.deliveries).toHaveLength(0);
      expect(await deliverTo((ip) => ip === '127.0.0.1')).toMatchObject({ status: 200, error: null });
      expect(receiver.deliveries).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });

  it("keeps only the beginning of a huge error in the records it abandons and the job's error", async () => {
    runner = createBatchRunner({
      store: await makeStore(),
      processors: [
        {
          type: 'verify_email',
          async process() {
            throw new Error(`upstream said: ${'x'.repeat(100_000)}`);
          },
        },
      ],
      retryDelayMs: () => 1,
      pollIntervalMs: 5,
      maxAttempts: 2,
    });
    const job = await runner.submit({ type: 'verify_email', records: ['a@x.test', 'b@x.test'] });
    runner.start();
    await expect.poll(async () => (await runner?.get(job.id))?.status).toBe('failed');
    const reason = `its chunk failed 2 times (last error: upstream said: ${'x'.repeat(300 - 15)}…)`;
    const { data } = await runner.results(job.id);
    expect(data.map((record) => record.error?.message)).toEqual([reason, reason]);
    expect((await runner.get(job.id)).error?.message).toBe(
      `2 of 2 records could not be processed: ${reason}`,
    );
  });

  it('cancels: in-flight work sees the abort and nothing more is committed', async () => {
    const seen: AbortSignal[] = [];
    const cancelled: string[] = [];
    runner = createBatchRunner({
      store: await makeStore(),
      processors: [testProcessor({ holdUntilAborted: true, seen })],
      chunkSize: 10,
      concurrency: 1,
      onJobFinished: (job) => {
        cancelled.push(job.status);
      },
    });
    const job = await runner.submit({
      type: 'verify_email',
      records: Array.from({ length: 100 }, (_, index) => `u${index}@x.test`),
    });
    runner.start();
    // Cancelled while the first chunk is being processed (seen), not after a guessed delay.
    await expect.poll(() => seen.length, { timeout: 5_000 }).toBe(1);
    expect((await runner.cancel(job.id)).status).toBe('cancelled');
    expect(seen[0]?.aborted).toBe(true);
    // Once the chunk in flight has ended, nothing of it was committed and nothing more was claimed.
    await runner.idle();
    expect(seen).toHaveLength(1);
    expect(await runner.get(job.id)).toMatchObject({ status: 'cancelled', processed: 0 });
    expect(cancelled).toEqual(['cancelled']);
  });

  it('lets a second runner finish the work of a process that died holding a lease', async () => {
    const store = await makeStore();
    runner = createBatchRunner({
      store,
      processors: [testProcessor()],
      leaseMs: 60,
      owner: 'second',
      pollIntervalMs: 10,
      chunkSize: 5,
    });
    const job = await runner.submit({
      type: 'verify_email',
      records: Array.from({ length: 10 }, (_, index) => `u${index}@x.test`),
    });
    // A process claims a chunk and dies (as after SIGKILL): no renewal, no release, no commit.
    const dead = await store.claimChunk('dead-process', Date.now(), 60);
    expect(dead?.records).toHaveLength(5);
    runner.start();
    await expect.poll(async () => (await runner?.get(job.id))?.status, { timeout: 5000 }).toBe('completed');
    expect(await runner.get(job.id)).toMatchObject({ processed: 10, failed: 0 });
    expect(await store.commitChunk(dead!, [], Date.now())).toBe('lost_lease');
  });

  it('exports results as NDJSON and CSV', async () => {
    runner = createBatchRunner({ store: await makeStore(), processors: [testProcessor()] });
    const job = await runner.submit({ type: 'verify_email', records: ['a@x.test', 'bad, "quoted"'] });
    runner.start();
    await runner.idle();
    const read = async (format: 'ndjson' | 'csv') => {
      let text = '';
      for await (const chunk of await (runner as BatchRunner).export(job.id, format)) text += chunk;
      return text;
    };
    const ndjson = (await read('ndjson'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(ndjson.map((line) => line.index)).toEqual([0, 1]);
    const csv = (await read('csv')).trim().split('\n');
    expect(csv[0]).toBe('index,input,ok,error_code,error_message,result.email,result.state');
    expect(csv[2]).toBe('1,"bad, ""quoted""",false,invalid,"bad, ""quoted"" is bad",,');
  });
});

describe('submit validation', () => {
  it.each([
    [{ type: 'verify_email', records: [] }, '"records" is empty: a job needs at least one record'],
    [
      { type: 'verify_email', records: Array(50_001).fill('a') },
      '"records" has 50001 entries; at most 50000 per job',
    ],
    [{ type: 'verify_email', records: ['a', 42] }, '"records[1]" must be a string'],
    [{ type: 'enrich_contact', records: ['a'] }, '"type" must be one of verify_email, got "enrich_contact"'],
    [
      { type: 'verify_email', records: ['a'], webhook_url: 'ftp://x.test/hook' },
      '"webhook_url" must be an http or https URL',
    ],
    [
      { type: 'verify_email', records: ['a'], webhook_url: 'not a url' },
      '"webhook_url" is not a URL: "not a url"',
    ],
    [{ type: 'verify_email', records: 'a' }, '"records" must be an array of strings'],
    [
      { type: 'verify_email', records: ['a@x.test', `${'a'.repeat(1020)}@x.test`] },
      '"records[1]" has 1027 characters; a record has at most 1024',
    ],
    [
      { type: 'verify_email', records: ['a'], webhook_url: `https://x.test/${'h'.repeat(2040)}` },
      '"webhook_url" has 2055 characters; at most 2048',
    ],
  ])('refuses %j with invalid_request', async (request, message) => {
    const local = createBatchRunner({ store: createMemoryStore(), processors: [testProcessor()] });
    await expect(local.submit(request as never)).rejects.toMatchObject({ code: 'invalid_request', message });
  });

  it('accepts records and a webhook URL at the limits', async () => {
    const local = createBatchRunner({ store: createMemoryStore(), processors: [testProcessor()] });
    const job = await local.submit({
      type: 'verify_email',
      records: ['a'.repeat(1024)],
      webhook_url: `https://x.test/${'h'.repeat(2048 - 'https://x.test/'.length)}`,
    });
    expect(job.total).toBe(1);
  });

  it('404s unknown ids', async () => {
    const local = createBatchRunner({ store: createMemoryStore(), processors: [testProcessor()] });
    await expect(local.get('batch_nope')).rejects.toMatchObject({ code: 'not_found', status: 404 });
  });
});
