import { randomUUID } from 'node:crypto';
import { importOptionalPeer, isTerminalBatchStatus, type RedisClient } from '@svc/core';
import type { Job, Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { ChunkDispatcher, ChunkOutcome } from '../runner/chunk-dispatcher.js';
import type { ChunkLease, JobRecord, Store } from '../store.js';

/*
 * Chunks handed out through a BullMQ queue (DESIGN §6, §10), so an idle worker wakes the moment
 * there is work instead of polling the store.
 *
 * Why one message per chunk that is not bound to one chunk: the Store claims "the next claimable
 * chunk" (SKIP LOCKED in Postgres), and it stays the only judge of leases and commits. A message
 * is a token worth one chunk of work: whoever holds one claims through the store, holds the
 * message (its BullMQ lock extended like the lease) while the chunk runs, and then
 *   - committed: completes the message (one commit, one message gone);
 *   - released (a failure's backoff, a clean stop): delays the message to the retry time;
 *   - nothing claimable, or the lease lost: completes it if the job it stands for is finished,
 *     else delays it `recheckMs` (the chunk is leased elsewhere or waits for its retry, and a
 *     holder that dies must still find a message pointing at it).
 * A message takes the id of the job whose chunk it claimed last (`updateData`), so "the job it
 * stands for" is the job of a chunk it may still be owed. Messages are created once per chunk
 * and removed only by a commit or a finished job, so there are never fewer live messages than
 * uncommitted chunks. A message delivered twice finds nothing left to claim and is dropped;
 * the store commits each chunk once whatever the queue does.
 *
 * A worker killed mid-chunk: its message's lock expires and BullMQ's stalled check puts it back
 * in the queue (lockMs + stalledIntervalMs at most), its lease expires in the store, and the next
 * holder of the message claims the chunk again (or rechecks until the lease has expired).
 *
 * Redis is a wake-up service here, not the state: an idle worker still asks the store itself every
 * `fallbackPollMs`, and while Redis does not answer it claims straight from the store like the
 * default dispatcher, so a lost message (Redis restarted without persistence, a job submitted
 * while Redis was down) delays work but never loses it.
 */

/** Options of createBullMqDispatcher. */
export interface BullMqDispatcherOptions {
  /** The runner's store: claims still lease through it. */
  store: Store;
  /**
   * `redis://[:password@]host:6379[/db]` (`rediss://` for TLS), opened and closed by the
   * dispatcher, or an ioredis client of the caller's (left open; BullMQ duplicates it for its
   * blocking connection).
   */
  connection: string | RedisClient;
  /** The BullMQ queue. @default 'svc-batch' */
  queueName?: string;
  /** BullMQ's key prefix: every key is `<prefix>:<queueName>:…`. @default 'bull' */
  prefix?: string;
  /** How long a held message stays locked without renewal (renewed every half of it). @default 30000 */
  lockMs?: number;
  /** How often BullMQ looks for messages whose holder died (their lock expired). @default 30000 */
  stalledIntervalMs?: number;
  /**
   * Longest an idle worker waits on the queue before asking the store itself (work whose message
   * was lost). @default 5000
   */
  fallbackPollMs?: number;
  /** Delay before a message that found nothing to claim, for a job still running, looks again. @default 5000 */
  recheckMs?: number;
  /**
   * Longest a claim waits for Redis before claiming straight from the store (Redis down), and a
   * submit waits to enqueue (the job is then found by the fallback poll). @default 2000
   */
  redisTimeoutMs?: number;
  /** Told of Redis errors; the dispatcher carries on without them. @default none */
  onError?: (error: Error) => void;
}

/** A ChunkDispatcher on a BullMQ queue; `close()` hands back unused messages and closes Redis. */
export interface BullMqDispatcher extends ChunkDispatcher {
  close(): Promise<void>;
}

/** A message moved to active for us, with the lock token it was fetched with. */
interface Message {
  job: Job<MessageData>;
  token: string;
}

interface MessageData {
  /** The batch job whose chunk this message claimed last (at first: the job it was made for). */
  jobId: string;
}

const MESSAGE_NAME = 'chunk';
/** Messages added per Redis call for a large job. */
const ADD_BATCH = 1000;
/** BullMQ fails a message that stalled more often; the store counts attempts, so: never. */
const MAX_STALLED = 1_000_000;

/** Creates a BullMQ dispatcher; bullmq and ioredis are loaded on first use. */
export function createBullMqDispatcher(options: BullMqDispatcherOptions): BullMqDispatcher {
  const { store } = options;
  const queueName = options.queueName ?? 'svc-batch';
  const prefix = options.prefix ?? 'bull';
  const lockMs = options.lockMs ?? 30_000;
  const stalledIntervalMs = options.stalledIntervalMs ?? 30_000;
  const fallbackPollMs = options.fallbackPollMs ?? 5_000;
  const recheckMs = options.recheckMs ?? 5_000;
  const redisTimeoutMs = options.redisTimeoutMs ?? 2_000;
  for (const [name, value] of Object.entries({
    lockMs,
    stalledIntervalMs,
    fallbackPollMs,
    recheckMs,
    redisTimeoutMs,
  })) {
    if (!Number.isInteger(value) || value < 1)
      throw new TypeError(`${name} must be a positive integer, got ${value}`);
  }
  if (!/^[A-Za-z0-9_.-]{1,100}$/.test(queueName))
    throw new TypeError(
      `queueName must be letters, digits, _, . or - (no :), got ${JSON.stringify(queueName)}`,
    );
  if (typeof options.connection !== 'string' && typeof options.connection?.duplicate !== 'function')
    throw new TypeError('connection must be a redis:// URL or an ioredis client');
  const report = (error: unknown) =>
    options.onError?.(error instanceof Error ? error : new Error(String(error)));

  const owned: Redis[] = [];
  let queue: Promise<Queue<MessageData>> | null = null;
  let worker: Promise<Worker<MessageData>> | null = null;
  let closed = false;
  /** Messages fetched while waiting (or after a claim stopped waiting), not yet used. */
  const stash: Message[] = [];
  /** The message behind each lease we handed out, with its lock renewal. */
  const held = new Map<ChunkLease, { message: Message; renewal: NodeJS.Timeout }>();
  /** One blocking fetch at a time: every idle runner worker waits on it. */
  let blocking: Promise<void> | null = null;
  /** While Redis does not answer in time: claims go straight to the store; one probe at a time. */
  let degraded = false;
  let probing: Promise<void> | null = null;
  let nextFallbackAt = 0;

  async function client(kind: 'queue' | 'worker'): Promise<Redis> {
    if (typeof options.connection !== 'string') return options.connection as Redis;
    const { Redis: IORedis } = await loadIoredis();
    // BullMQ's worker connection must retry forever (maxRetriesPerRequest null); our own timeouts
    // bound every wait on it.
    const redis = new IORedis(options.connection, {
      maxRetriesPerRequest: kind === 'worker' ? null : 1,
      connectionName: `svc-batch-${kind}`,
    });
    redis.on('error', report);
    owned.push(redis);
    return redis;
  }

  function getQueue(): Promise<Queue<MessageData>> {
    queue ??= (async () => {
      const { Queue: BullQueue } = await loadBullMq();
      const created = new BullQueue<MessageData>(queueName, {
        connection: await client('queue'),
        prefix,
        defaultJobOptions: { removeOnComplete: true, removeOnFail: 1000 },
      });
      created.on('error', report);
      return created;
    })();
    return queue;
  }

  function getWorker(): Promise<Worker<MessageData>> {
    worker ??= (async () => {
      const { Worker: BullWorker } = await loadBullMq();
      const created = new BullWorker<MessageData>(queueName, null, {
        connection: await client('worker'),
        prefix,
        autorun: false,
        lockDuration: lockMs,
        stalledInterval: stalledIntervalMs,
        maxStalledCount: MAX_STALLED,
        // The blocking wait ends at least this often, so the fallback poll keeps its pace.
        drainDelay: Math.max(1, Math.ceil(fallbackPollMs / 1000)),
        removeOnComplete: { count: 0 },
      });
      created.on('error', report);
      // Fetching by hand, the worker does not run its stalled checker unless asked.
      void created.startStalledCheckTimer().catch(report);
      return created;
    })();
    return worker;
  }

  /** One getNextJob; its message (if any) is returned. Errors mark Redis as degraded. */
  async function fetchRaw(block: boolean): Promise<Message | null> {
    const token = randomUUID();
    try {
      const job = (await (await getWorker()).getNextJob(token, { block })) as Job<MessageData> | undefined;
      degraded = false;
      return job ? { job, token } : null;
    } catch (error) {
      degraded = true;
      report(error);
      return null;
    }
  }

  /** A message now, or null; a fetch that takes longer than redisTimeoutMs lands in the stash later. */
  async function fetchNow(): Promise<Message | null> {
    const queued = stash.shift();
    if (queued) return queued;
    if (degraded) {
      probing ??= fetchRaw(false)
        .then((message) => {
          if (message) keep(message);
        })
        .finally(() => {
          probing = null;
        });
      return null;
    }
    const fetching = fetchRaw(false);
    const result = await within(fetching, redisTimeoutMs);
    if (result === TIMED_OUT) {
      degraded = true;
      void fetching.then((message) => message && keep(message));
      return null;
    }
    return result;
  }

  /** A message fetched when nobody waits for it: kept for the next claim, or handed back after close. */
  function keep(message: Message): void {
    if (closed) void handBack(message);
    else stash.push(message);
  }

  function handBack(message: Message): Promise<void> {
    return message.job.moveToDelayed(Date.now(), message.token).catch(report);
  }

  /** Nothing to claim for this message: drop it if its job is finished, else look again later. */
  async function recheckLater(message: Message): Promise<void> {
    let job: JobRecord | null | undefined;
    try {
      job = await store.getJob(message.job.data.jobId);
    } catch (error) {
      report(error);
    }
    try {
      if (job === null || (job && isTerminalBatchStatus(job.status)))
        await message.job.moveToCompleted(null, message.token, false);
      else await message.job.moveToDelayed(Date.now() + recheckMs, message.token);
    } catch (error) {
      // The lock was lost (it stalled and went to another worker): that worker has the message now.
      report(error);
    }
  }

  async function claimWith(
    message: Message,
    owner: string,
    now: number,
    leaseMs: number,
    types: readonly string[],
  ): Promise<ChunkLease | null> {
    let lease: ChunkLease | null;
    try {
      lease = await store.claimChunk(owner, now, leaseMs, types);
    } catch (error) {
      await handBack(message);
      throw error;
    }
    if (!lease) {
      await recheckLater(message);
      return null;
    }
    const renewal = setInterval(
      () => {
        message.job.extendLock(message.token, lockMs).catch(report);
      },
      Math.max(10, Math.floor(lockMs / 2)),
    );
    renewal.unref();
    held.set(lease, { message, renewal });
    if (message.job.data.jobId !== lease.jobId)
      await message.job.updateData({ jobId: lease.jobId }).catch(report);
    return lease;
  }

  return {
    async claim(owner, now, leaseMs, types) {
      if (closed) return null;
      const message = await fetchNow();
      if (message) return claimWith(message, owner, now, leaseMs, types);
      // Without a message: only when Redis is away, or once per fallbackPollMs (work whose
      // message was lost). Such a lease holds no message; its chunk is found again by the poll.
      if (degraded || Date.now() >= nextFallbackAt) {
        nextFallbackAt = Date.now() + fallbackPollMs;
        const lease = await store.claimChunk(owner, now, leaseMs, types);
        // Work found without a message (a job submitted while Redis was away, messages lost with
        // a Redis restart) is drained from the store, not taken one chunk per poll: a 200-chunk
        // job would otherwise take 200 polls. The poll pace returns once the store has none.
        if (lease) nextFallbackAt = 0;
        return lease;
      }
      return null;
    },

    async submitted(job, { chunks }) {
      if (closed || chunks < 1) return;
      const enqueue = (async () => {
        const target = await getQueue();
        for (let start = 0; start < chunks; start += ADD_BATCH) {
          const count = Math.min(ADD_BATCH, chunks - start);
          await target.addBulk(
            Array.from({ length: count }, (_, offset) => ({
              name: MESSAGE_NAME,
              data: { jobId: job.id },
              // A deterministic id: telling the queue twice about one job adds nothing.
              opts: { jobId: `${job.id}-${start + offset}` },
            })),
          );
        }
      })();
      // The job is in the store already: a Redis outage must not fail the submit (the fallback
      // poll finds the job), only slow its start.
      const result = await within(
        enqueue.catch((error: unknown) => {
          report(error);
        }),
        redisTimeoutMs,
      );
      if (result === TIMED_OUT)
        report(
          new Error(
            `enqueueing the chunks of ${job.id} took over ${redisTimeoutMs} ms; workers will find it by polling`,
          ),
        );
    },

    async settled(lease, outcome: ChunkOutcome) {
      const entry = held.get(lease);
      if (!entry) return;
      held.delete(lease);
      clearInterval(entry.renewal);
      const { message } = entry;
      try {
        if (outcome.state === 'committed') await message.job.moveToCompleted(null, message.token, false);
        else if (outcome.state === 'released')
          await message.job.moveToDelayed(Math.max(Date.now(), outcome.retryAt), message.token);
        else await recheckLater(message);
      } catch (error) {
        report(error);
      }
    },

    async waitForWork(pollIntervalMs, signal) {
      if (closed || signal.aborted) return;
      if (stash.length > 0) return;
      if (degraded) return sleep(pollIntervalMs, signal);
      blocking ??= fetchRaw(true)
        .then((message) => {
          if (message) keep(message);
        })
        .finally(() => {
          blocking = null;
        });
      // Redis that stops answering must not hold an idle worker for longer than the fallback poll.
      const timer = new AbortController();
      const stop = () => timer.abort();
      signal.addEventListener('abort', stop, { once: true });
      try {
        await Promise.race([blocking, sleep(fallbackPollMs, timer.signal)]);
      } finally {
        timer.abort();
        signal.removeEventListener('abort', stop);
      }
    },

    async close() {
      if (closed) return;
      closed = true;
      for (const message of stash.splice(0)) await handBack(message);
      for (const [lease, { message, renewal }] of held) {
        clearInterval(renewal);
        held.delete(lease);
        await handBack(message);
      }
      const closing: Promise<unknown>[] = [];
      if (worker) closing.push(worker.then((opened) => opened.close(true)));
      if (queue) closing.push(queue.then((opened) => opened.close()));
      // BullMQ's close waits on Redis; a Redis that is away must not hold a shutdown.
      await within(Promise.allSettled([...closing, blocking, probing]), redisTimeoutMs);
      for (const redis of owned) redis.disconnect();
    },
  };
}

const TIMED_OUT = Symbol('timed out');

/** The promise's value, or TIMED_OUT after `ms` (the promise goes on). */
function within<T>(promise: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

// Loaded on first use: a runner on the default dispatcher never needs them installed.
async function loadBullMq(): Promise<typeof import('bullmq')> {
  return importOptionalPeer(() => import('bullmq'), {
    user: 'the BullMQ dispatcher',
    needs: 'bullmq',
    install: 'bullmq@6 ioredis',
    from: '@svc/batch-runner',
  });
}

async function loadIoredis(): Promise<{ Redis: typeof import('ioredis').Redis }> {
  const { Redis } = await importOptionalPeer(() => import('ioredis'), {
    user: 'the BullMQ dispatcher',
    needs: 'ioredis',
    install: 'bullmq@6 ioredis',
    from: '@svc/batch-runner',
  });
  return { Redis };
}
