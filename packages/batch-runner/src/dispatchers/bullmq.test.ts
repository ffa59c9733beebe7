import { randomBytes } from 'node:crypto';
import { closedPort, REDIS, serviceUrl } from '@svc/testkit';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import type { Processor } from '../runner/processor.js';
import { type BatchRunner, createBatchRunner } from '../runner/runner.js';
import type { Store } from '../store.js';
import { createMemoryStore } from '../stores/memory.js';
import { type BullMqDispatcher, type BullMqDispatcherOptions, createBullMqDispatcher } from './bullmq.js';

const redisUrl = await serviceUrl(REDIS, 'the BullMQ dispatcher tests');

/** Every test's own queue keys (`<prefix>:<queue>:…`), deleted at the end. */
let prefix = '';
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
  if (redisUrl && prefix) {
    const redis = new Redis(redisUrl);
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  }
});

function newPrefix(): string {
  prefix = `svc_t_bull_${randomBytes(6).toString('hex')}`;
  return prefix;
}

function dispatcher(store: Store, extra: Partial<BullMqDispatcherOptions> = {}): BullMqDispatcher {
  const created = createBullMqDispatcher({ store, connection: redisUrl as string, prefix, ...extra });
  cleanups.push(() => created.close());
  return created;
}

function runner(store: Store, options: Partial<Parameters<typeof createBatchRunner>[0]>): BatchRunner {
  const created = createBatchRunner({ store, processors: [], ...options });
  cleanups.push(() => created.close({ timeoutMs: 100 }));
  return created;
}

/** A verify_email processor that records every index it was given. */
function countingProcessor(seen: number[], delayMs = 0): Processor {
  return {
    type: 'verify_email',
    async process(records) {
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      seen.push(...records.map((record) => record.index));
      return records.map(({ index }) => ({ index, ok: true, result: { index }, countKey: 'deliverable' }));
    },
  };
}

async function queueCounts(queueName = 'svc-batch'): Promise<Record<string, number>> {
  const queue = new Queue(queueName, { connection: new Redis(redisUrl as string), prefix });
  try {
    return await queue.getJobCounts('wait', 'active', 'delayed', 'completed', 'failed');
  } finally {
    await queue.close();
    await queue.disconnect();
  }
}

const records = (count: number) => Array.from({ length: count }, (_, index) => `r${index}@x.test`);

describe.skipIf(!redisUrl)('createBullMqDispatcher (real Redis)', () => {
  it('wakes an idle worker through the queue, not its 10 s store poll', async () => {
    newPrefix();
    const store = createMemoryStore();
    let chunks = 0;
    const processor: Processor = {
      type: 'verify_email',
      async process(batch) {
        chunks++;
        return batch.map(({ index }) => ({ index, ok: true, result: {}, countKey: 'deliverable' }));
      },
    };
    // The worker and the API side each have their own dispatcher, as two processes would.
    const worker = runner(store, {
      dispatcher: dispatcher(store, { fallbackPollMs: 10_000 }),
      processors: [processor],
      pollIntervalMs: 10_000,
      chunkSize: 2,
    });
    const api = runner(store, { dispatcher: dispatcher(store), processors: [processor], chunkSize: 2 });
    worker.start();
    // Real time, on purpose: the worker's first store poll must pass and its BullMQ workers block
    // on the real Redis queue before the job exists, or the store poll would find it.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const job = await api.submit({ type: 'verify_email', records: records(6) });
    // Done within 5 s while the worker's next store poll is 10 s away: the queue woke it. (How
    // fast it wakes is a benchmark's question, not a test's.)
    await expect
      .poll(async () => (await worker.get(job.id)).status, { timeout: 5_000, interval: 20 })
      .toBe('completed');
    expect(chunks).toBe(3);
    // Every message was acknowledged by a commit: nothing left waiting, delayed or active.
    expect(await queueCounts()).toMatchObject({ wait: 0, active: 0, delayed: 0, failed: 0 });
  });

  it('a message delivered twice finds its chunk committed: each record processed and counted once', async () => {
    newPrefix();
    const store = createMemoryStore();
    const seen: number[] = [];
    const api = runner(store, { dispatcher: dispatcher(store), processors: [countingProcessor(seen)] });
    const job = await api.submit({ type: 'verify_email', records: records(3) });
    // The queue delivers the job's one message a second time (as after a redelivery).
    const queue = new Queue('svc-batch', { connection: new Redis(redisUrl as string), prefix });
    cleanups.push(async () => {
      await queue.close();
      await queue.disconnect();
    });
    await queue.add('chunk', { jobId: job.id }, { jobId: `${job.id}-again` });
    expect(await queueCounts()).toMatchObject({ wait: 2 });

    const worker = runner(store, {
      dispatcher: dispatcher(store, { fallbackPollMs: 60_000, recheckMs: 200 }),
      processors: [countingProcessor(seen, 50)],
      concurrency: 2,
    });
    worker.start();
    await expect.poll(async () => (await worker.get(job.id)).status, { timeout: 5_000 }).toBe('completed');
    await expect
      .poll(() => queueCounts(), { timeout: 5_000 })
      .toMatchObject({ wait: 0, active: 0, delayed: 0 });
    expect(seen.sort()).toEqual([0, 1, 2]);
    const finished = await worker.get(job.id);
    expect(finished).toMatchObject({ processed: 3, failed: 0, counts: { deliverable: 3 } });
    expect((await worker.results(job.id)).data.map((result) => result.index)).toEqual([0, 1, 2]);
  });

  it('a worker that dies mid-chunk: its lease expires, BullMQ puts the message back, a second runner finishes the chunk', async () => {
    newPrefix();
    const store = createMemoryStore();
    const api = runner(store, { dispatcher: dispatcher(store), processors: [countingProcessor([])] });
    const job = await api.submit({ type: 'verify_email', records: records(4) });

    // Runner A: its processor never returns. "Killing" it cuts its Redis connection (no more lock
    // renewal) and makes its view of the store fail (no more lease renewal, no release), as a
    // SIGKILL would; nothing is handed back.
    let dead = false;
    const deadStore = new Proxy(store, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) =>
          dead ? Promise.reject(new Error('the process is dead')) : value.apply(target, args);
      },
    });
    const redisA = new Redis(redisUrl as string, { maxRetriesPerRequest: null });
    cleanups.push(async () => redisA.disconnect());
    const heldByA: number[] = [];
    const runnerA = runner(deadStore, {
      dispatcher: dispatcher(deadStore, { connection: redisA, lockMs: 1_000, stalledIntervalMs: 500 }),
      processors: [
        {
          type: 'verify_email',
          process: (batch) => {
            heldByA.push(...batch.map((record) => record.index));
            return new Promise(() => {});
          },
        },
      ],
      concurrency: 1,
      leaseMs: 1_500,
    });
    runnerA.start();
    await expect.poll(() => heldByA.length, { timeout: 5_000 }).toBe(4);
    expect(await queueCounts()).toMatchObject({ active: 1 });
    dead = true;
    redisA.disconnect();
    const diedAt = Date.now();

    // Runner B polls the store only once a minute: the work can only reach it through the queue.
    const seenByB: number[] = [];
    const runnerB = runner(store, {
      dispatcher: dispatcher(store, {
        lockMs: 1_000,
        stalledIntervalMs: 500,
        recheckMs: 300,
        fallbackPollMs: 60_000,
      }),
      processors: [countingProcessor(seenByB)],
      leaseMs: 1_500,
    });
    runnerB.start();
    await expect.poll(async () => (await runnerB.get(job.id)).status, { timeout: 15_000 }).toBe('completed');
    console.log(
      `bullmq dispatcher: a dead worker's chunk finished by another runner ${Date.now() - diedAt} ms after the death`,
    );
    expect(seenByB.sort()).toEqual([0, 1, 2, 3]);
    expect(await runnerB.get(job.id)).toMatchObject({ processed: 4, counts: { deliverable: 4 } });
    await expect
      .poll(() => queueCounts(), { timeout: 5_000 })
      .toMatchObject({ wait: 0, active: 0, delayed: 0 });
  });

  it('keeps a chunk that runs longer than the lock: the lock is renewed, no second worker gets the message', async () => {
    newPrefix();
    const store = createMemoryStore();
    const seen: number[] = [];
    const errors: string[] = [];
    const options = {
      lockMs: 400,
      stalledIntervalMs: 200,
      fallbackPollMs: 60_000,
      recheckMs: 200,
      onError: (error: Error) => errors.push(error.message),
    };
    const first = runner(store, {
      dispatcher: dispatcher(store, options),
      processors: [countingProcessor(seen, 1_500)],
      concurrency: 1,
    });
    const second = runner(store, {
      dispatcher: dispatcher(store, options),
      processors: [countingProcessor(seen, 1_500)],
      concurrency: 1,
    });
    first.start();
    second.start();
    // Real time, on purpose: both past their first look at the store, blocked on the real Redis
    // queue, before the job exists.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const job = await first.submit({ type: 'verify_email', records: records(2) });
    await expect.poll(async () => (await first.get(job.id)).status, { timeout: 6_000 }).toBe('completed');
    expect(seen.sort()).toEqual([0, 1]);
    // A lapsed lock would have sent the message to the other runner, and the holder's
    // acknowledgement would then fail for want of the lock.
    expect(errors).toEqual([]);
    await expect
      .poll(() => queueCounts(), { timeout: 2_000 })
      .toMatchObject({ wait: 0, active: 0, delayed: 0 });
  });

  it('with Redis away, submits still succeed and workers claim from the store (the error is reported)', async () => {
    newPrefix();
    const store = createMemoryStore();
    const errors: string[] = [];
    const down = `redis://127.0.0.1:${await closedPort()}`;
    const seen: number[] = [];
    const worker = runner(store, {
      dispatcher: dispatcher(store, {
        connection: down,
        redisTimeoutMs: 200,
        onError: (error) => errors.push(error.message),
      }),
      processors: [countingProcessor(seen)],
      pollIntervalMs: 20,
    });
    worker.start();
    const started = Date.now();
    const job = await worker.submit({ type: 'verify_email', records: records(3) });
    expect(Date.now() - started).toBeLessThan(2_000);
    await expect.poll(async () => (await worker.get(job.id)).status, { timeout: 5_000 }).toBe('completed');
    expect(seen.sort()).toEqual([0, 1, 2]);
    expect(errors.join('\n')).toMatch(/ECONNREFUSED|took over 200 ms/);
  });

  it('a job whose messages were lost is drained from the store once found, not one chunk per fallback poll', async () => {
    newPrefix();
    const store = createMemoryStore();
    const seen: number[] = [];
    // Submitted with no dispatcher: its 20 chunks have no message (as when Redis lost them).
    const api = runner(store, { processors: [countingProcessor(seen)], chunkSize: 1 });
    const job = await api.submit({ type: 'verify_email', records: records(20) });
    // Polls a minute apart: the first look at the store finds the job, and one chunk per poll
    // would take 20 minutes, so a finished job shows it was drained at once (not timed).
    const worker = runner(store, {
      dispatcher: dispatcher(store, { fallbackPollMs: 60_000 }),
      processors: [countingProcessor(seen)],
      pollIntervalMs: 60_000,
    });
    worker.start();
    await expect
      .poll(async () => (await worker.get(job.id)).status, { timeout: 10_000, interval: 50 })
      .toBe('completed');
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, index) => index));
  });

  it('refuses bad options with a message', () => {
    const store = createMemoryStore();
    expect(() => createBullMqDispatcher({ store, connection: 'redis://x', queueName: 'a:b' })).toThrow(
      'queueName must be letters, digits, _, . or - (no :), got "a:b"',
    );
    expect(() => createBullMqDispatcher({ store, connection: 'redis://x', lockMs: 0 })).toThrow(
      'lockMs must be a positive integer, got 0',
    );
    expect(() => createBullMqDispatcher({ store, connection: 42 as unknown as string })).toThrow(
      'connection must be a redis:// URL or an ioredis client',
    );
  });
});
