import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Readable } from 'node:stream';
import { type BatchJob, createId, isTerminalBatchStatus, ServiceError } from '@svc/core';
import { toApiJob } from '../api-job.js';
import {
  createWebhookDispatcher,
  type ResendOptions,
  type WebhookDispatcherOptions,
} from '../delivery/dispatcher.js';
import type { ChunkLease, EventView, JobRecord, JobScope, Page, RecordResult, Store } from '../store.js';
import { yieldToEventLoop } from '../yield.js';
import { type ChunkDispatcher, type ChunkOutcome, storeDispatcher } from './chunk-dispatcher.js';
import { exportLines } from './export.js';
import { createPacer } from './pacer.js';
import type { Processor, ProcessorOutcome } from './processor.js';
import { createRetentionSweeper, type RetentionOptions } from './retention.js';
import { type SubmitRequest, validateSubmit } from './validate-submit.js';

/** Options of createBatchRunner. */
export interface BatchRunnerOptions {
  store: Store;
  /** How workers find chunks. @default storeDispatcher(store): claim from the store, poll when idle */
  dispatcher?: ChunkDispatcher;
  /** One processor per job type. */
  processors: Processor[];
  /** Chunks processed at once by this runner. @default 4 */
  concurrency?: number;
  /** Records per chunk, unless the job type's processor asks for another size. @default 250 */
  chunkSize?: number;
  /**
   * Records per chunk of a sandbox job, at most (whatever its processor asks): sandbox work is
   * CPU only, and a chunk's processing and commit run without a pause, so small chunks keep the
   * process answering other requests while a 50,000-record test job runs. @default 100
   */
  sandboxChunkSize?: number;
  /**
   * After each chunk of a sandbox job, the next sandbox chunk waits this many times as long as
   * that one took (its processing and commit, wall time): sandbox chunks run one at a time and
   * take at most 1 / (1 + ratio) of the process's time, so a CPU-only test job leaves the event
   * loop idle most of the time instead of keeping the process busy until it ends. Live jobs' chunks
   * are never held. 0 runs sandbox chunks as they come. @default 2
   */
  sandboxRestRatio?: number;
  /** How long a claimed chunk stays ours without renewal; renewed every third of it. @default 30000 */
  leaseMs?: number;
  /** Unique name of this runner in leases. @default host:pid:random */
  owner?: string;
  /** Claims of one chunk before its records are failed. @default 5 */
  maxAttempts?: number;
  /**
   * Delay before a failed chunk is retried, by attempt (0-based).
   * @default 1 s × 2^attempt, max 60 s, ±25 % jitter (so runners that failed together retry apart)
   */
  retryDelayMs?: (attempt: number) => number;
  /** Wait between claims when there is nothing to do. @default 100 */
  pollIntervalMs?: number;
  /** Clock in ms. @default Date.now */
  now?: () => number;
  /** Called once when a job completes or is cancelled (the webhook outbox hooks in here). @default none */
  onJobFinished?: (job: BatchJob) => void | Promise<void>;
  /** The results URL put in jobs. @default null */
  resultsUrl?: (id: string) => string | null;
  /**
   * Delivers the store's webhook outbox while the runner runs (start/close drive it too): the
   * signing secrets, newest first, and the dispatcher's other settings. Without it, events wait
   * in the outbox for a dispatcher started elsewhere (createWebhookDispatcher).
   * @default none
   */
  webhooks?: Omit<WebhookDispatcherOptions, 'store'>;
  /**
   * Deletes finished jobs past their retention while the runner runs (start/close drive it):
   * live and sandbox apart, see createRetentionSweeper. @default none (jobs are kept forever)
   */
  retention?: RetentionOptions;
}

/**
 * Submits, runs and reads batch jobs. Every read takes an optional scope: with `accountId` it
 * sees only that account's jobs (another account's job is `not_found`, as if it did not exist);
 * without one it sees every job (a library or the CLI, which have no accounts).
 */
export interface BatchRunner {
  /** With `account_id`, the job belongs to that account and its idempotency key is that account's. */
  submit(request: SubmitRequest): Promise<BatchJob>;
  /** Like submit, and says whether the job is new or an earlier one returned for its idempotency key. */
  submitJob(request: SubmitRequest): Promise<{ job: BatchJob; created: boolean }>;
  get(id: string, scope?: JobScope): Promise<BatchJob>;
  list(options?: { cursor?: string | null; limit?: number } & JobScope): Promise<Page<BatchJob>>;
  results(
    id: string,
    options?: { cursor?: string | null; limit?: number } & JobScope,
  ): Promise<Page<RecordResult>>;
  export(id: string, format: 'ndjson' | 'csv', scope?: JobScope): Promise<Readable>;
  cancel(id: string, scope?: JobScope): Promise<BatchJob>;
  /** The job's webhook events, each with every delivery attempt, oldest first. */
  events(id: string, scope?: JobScope): Promise<EventView[]>;
  /**
   * Delivers one event again now (same event id, one more attempt; see WebhookDispatcher.resend);
   * `not_found` for an unknown event or another account's. Needs the `webhooks` option.
   */
  resendEvent(eventId: string, scope?: JobScope, options?: ResendOptions): Promise<EventView>;
  /** Starts claiming work (idempotent). */
  start(): void;
  /** Resolves once nothing is claimable and nothing is in flight. */
  idle(): Promise<void>;
  /** Stops claiming, waits up to timeoutMs for in-flight chunks, then aborts and releases them. */
  close(options?: { timeoutMs?: number }): Promise<void>;
}

/** Most characters of a chunk's last error kept in the records it abandons. */
const MAX_REASON_LENGTH = 300;

/** Creates a runner over a store; see BatchRunnerOptions. */
export function createBatchRunner(options: BatchRunnerOptions): BatchRunner {
  const { store } = options;
  const processors = new Map(options.processors.map((processor) => [processor.type, processor]));
  const types = [...processors.keys()];
  const concurrency = options.concurrency ?? 4;
  const chunkSize = options.chunkSize ?? 250;
  const sandboxChunkSize = options.sandboxChunkSize ?? 100;
  const sandboxRestRatio = options.sandboxRestRatio ?? 2;
  if (!(Number.isFinite(sandboxRestRatio) && sandboxRestRatio >= 0))
    throw new TypeError(`sandboxRestRatio must be a number of at least 0, got ${sandboxRestRatio}`);
  const sandboxPacer = sandboxRestRatio > 0 ? createPacer(sandboxRestRatio) : undefined;
  const leaseMs = options.leaseMs ?? 30_000;
  const maxAttempts = options.maxAttempts ?? 5;
  const pollMs = options.pollIntervalMs ?? 100;
  const dispatcher = options.dispatcher ?? storeDispatcher(store);
  const now = options.now ?? Date.now;
  const owner = options.owner ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const retryDelay =
    options.retryDelayMs ??
    ((attempt: number) => Math.min(60_000, 1000 * 2 ** attempt) * (0.75 + Math.random() * 0.5));
  const chunkSizes = Object.fromEntries(
    options.processors.flatMap((processor) =>
      processor.chunkSize === undefined
        ? []
        : [[`${processor.type} processor's chunkSize`, processor.chunkSize]],
    ),
  );
  for (const [name, value] of Object.entries({
    concurrency,
    chunkSize,
    sandboxChunkSize,
    leaseMs,
    maxAttempts,
    ...chunkSizes,
  })) {
    if (!Number.isInteger(value) || value < 1)
      throw new TypeError(`${name} must be a positive integer, got ${value}`);
  }

  const deliveries = options.webhooks
    ? createWebhookDispatcher({ resultsUrl: options.resultsUrl, ...options.webhooks, store })
    : undefined;
  const sweeper = options.retention
    ? createRetentionSweeper(store, { now, ...options.retention })
    : undefined;
  const inFlight = new Map<ChunkLease, AbortController>();
  // Why each chunk last failed in this process, so the record errors of a chunk that is finally
  // given up say why (bounded: only chunks between failure and give-up or commit are here).
  const lastFailure = new Map<string, string>();
  const chunkKey = (lease: ChunkLease) => `${lease.jobId}/${lease.chunk}`;
  const rememberFailure = (lease: ChunkLease, error: unknown) => {
    if (lastFailure.size >= 10_000) lastFailure.clear();
    // The reason is copied into every record of the chunk and into the job's error, and an
    // upstream error can carry a whole response body: keep its beginning only.
    const message = error instanceof Error ? error.message : String(error);
    lastFailure.set(
      chunkKey(lease),
      message.length > MAX_REASON_LENGTH ? `${message.slice(0, MAX_REASON_LENGTH)}…` : message,
    );
  };
  let running = false;
  // Aborted by close(): workers stop claiming, and one blocked in waitForWork stops waiting.
  let stop = new AbortController();
  let stopped = new Promise<void>(() => {});
  const stopping = () => stop.signal.aborted;
  let workers: Promise<void>[] = [];
  let idleWaiters: Array<() => void> = [];
  let idleWorkers = 0;

  const toApi = (job: JobRecord): BatchJob => toApiJob(job, options.resultsUrl);
  const mustGet = async (id: string, scope?: JobScope) => {
    const job = await store.getJob(id, scope);
    if (!job) throw new ServiceError('not_found', `no batch job ${JSON.stringify(id)}`);
    return job;
  };
  const finished = async (jobId: string) => {
    const job = await store.getJob(jobId);
    if (job && isTerminalBatchStatus(job.status)) await options.onJobFinished?.(toApi(job));
  };

  // The dispatcher's bookkeeping (a queue's acknowledgement) must not fail a chunk.
  const settle = (lease: ChunkLease, outcome: ChunkOutcome) =>
    dispatcher.settled?.(lease, outcome).catch(() => {});

  async function runChunk(lease: ChunkLease): Promise<void> {
    const controller = new AbortController();
    inFlight.set(lease, controller);
    const renewal = setInterval(
      () => {
        store.renewLease(lease, now(), leaseMs).then(
          (held) => held || controller.abort(new Error('lease lost')),
          () => {},
        );
      },
      Math.max(10, Math.floor(leaseMs / 3)),
    );
    try {
      const job = await store.getJob(lease.jobId);
      const work = () => processAndCommit(lease, job, controller);
      await (job?.sandbox && sandboxPacer ? sandboxPacer.run(work) : work());
    } catch (error) {
      if (!stopping()) rememberFailure(lease, error);
      // Shutdown hands the chunk back now; a failure waits for its backoff. A cancelled job's
      // chunks are never claimed again, so releasing them is harmless.
      const retryAt = stopping() ? now() : now() + retryDelay(lease.attempts);
      await store.releaseChunk(lease, retryAt, !stopping()).catch(() => {});
      await settle(lease, { state: 'released', retryAt });
    } finally {
      clearInterval(renewal);
      inFlight.delete(lease);
    }
  }

  /** Runs a claimed chunk's records through its processor and commits their results. */
  async function processAndCommit(
    lease: ChunkLease,
    job: JobRecord | null,
    controller: AbortController,
  ): Promise<void> {
    const processor = job ? processors.get(job.type) : undefined;
    let outcomes: ProcessorOutcome[];
    let abandoned = false;
    if (!processor) {
      abandoned = true;
      outcomes = lease.records.map(({ index }) => ({
        index,
        ok: false,
        error: { code: 'unknown_type', message: `no processor for ${job?.type}` },
      }));
    } else if (lease.attempts >= maxAttempts) {
      abandoned = true;
      const reason = lastFailure.get(chunkKey(lease));
      outcomes = lease.records.map(({ index }) => ({
        index,
        ok: false,
        error: {
          code: 'processing_failed',
          message: `its chunk failed ${lease.attempts} times${reason ? ` (last error: ${reason})` : ''}`,
        },
      }));
    } else {
      // A processor that ignores its signal must not hold up cancel or close.
      const aborted = new Promise<never>((_, reject) => {
        if (controller.signal.aborted) reject(controller.signal.reason);
        controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
      });
      outcomes = await Promise.race([
        processor.process(lease.records, {
          signal: controller.signal,
          jobId: lease.jobId,
          sandbox: job?.sandbox ?? false,
          accountId: job?.account_id ?? null,
        }),
        aborted,
      ]);
    }
    if (controller.signal.aborted) throw controller.signal.reason;
    const byIndex = new Map(outcomes.map((outcome) => [outcome.index, outcome]));
    // Every record gets exactly one result, even if the processor skipped or invented some.
    const results: RecordResult[] = lease.records.map(({ index, input }) => {
      const outcome = byIndex.get(index);
      if (!outcome)
        return {
          index,
          input,
          ok: false,
          error: { code: 'no_result', message: 'the processor returned nothing' },
        };
      if (outcome.ok)
        return { index, input, ok: true, result: outcome.result, countKey: outcome.countKey ?? null };
      return { index, input, ok: false, error: outcome.error, ...(abandoned && { abandoned }) };
    });
    if ((await store.commitChunk(lease, results, now())) === 'committed') {
      lastFailure.delete(chunkKey(lease));
      await settle(lease, { state: 'committed' });
      await finished(lease.jobId);
    } else await settle(lease, { state: 'lost' });
  }

  // One worker at a time past this gate per turn of the event loop: a chunk whose processing and
  // commit never wait for I/O (a sandbox job on SQLite) runs to its end in one go, and without
  // the gate the workers would run theirs back to back while requests wait.
  let turn: Promise<void> = Promise.resolve();
  const takeTurn = () => {
    turn = turn.then(yieldToEventLoop);
    return turn;
  };

  async function worker(): Promise<void> {
    while (!stopping()) {
      await takeTurn();
      if (stopping()) break;
      const lease = await dispatcher.claim(owner, now(), leaseMs, types).catch(() => null);
      if (lease) {
        await runChunk(lease);
        continue;
      }
      idleWorkers++;
      if (idleWorkers === concurrency && inFlight.size === 0) {
        const waiters = idleWaiters;
        idleWaiters = [];
        for (const resolve of waiters) resolve();
      }
      // close() must not wait for a dispatcher that blocks on its queue.
      await Promise.race([dispatcher.waitForWork(pollMs, stop.signal).catch(() => {}), stopped]);
      idleWorkers--;
    }
  }

  async function submitJob(request: SubmitRequest): Promise<{ job: BatchJob; created: boolean }> {
    const valid = validateSubmit(request, new Set(processors.keys()));
    const requestHash = valid.idempotency_key
      ? createHash('sha256')
          // A sandbox flag is part of the request: a live retry must not get a sandbox job back.
          .update(
            JSON.stringify([
              valid.type,
              valid.webhook_url,
              valid.records,
              ...(request.sandbox ? ['sandbox'] : []),
            ]),
          )
          .digest('hex')
      : null;
    const typeChunkSize = processors.get(valid.type)?.chunkSize ?? chunkSize;
    const jobChunkSize = request.sandbox ? Math.min(typeChunkSize, sandboxChunkSize) : typeChunkSize;
    const { job, created } = await store.createJob({
      ...valid,
      account_id: request.account_id ?? null,
      sandbox: request.sandbox === true,
      request_hash: requestHash,
      id: createId('batch'),
      chunkSize: jobChunkSize,
      now: new Date(now()),
      ...(request.quota && { quota: { ...request.quota, dayStart: utcDayStart(now()) } }),
    });
    // A retried request gets its job back; a different request reusing the key is a mistake
    // the caller must hear about (jobs written before hashes were kept have none: accepted).
    if (!created && job.request_hash !== null && job.request_hash !== requestHash) {
      throw new ServiceError(
        'invalid_request',
        `the idempotency key ${JSON.stringify(valid.idempotency_key)} was already used for a different request (job ${job.id})`,
      );
    }
    if (created) await dispatcher.submitted?.(job, { chunks: Math.ceil(job.total / jobChunkSize) });
    return { job: toApi(job), created };
  }

  return {
    async submit(request) {
      return (await submitJob(request)).job;
    },
    submitJob,
    async get(id, scope) {
      return toApi(await mustGet(id, scope));
    },
    async list({ cursor = null, limit = 20, accountId } = {}) {
      checkPaging(cursor, limit, /^batch_[0-9a-z]+$/);
      const page = await store.listJobs({ cursor, limit: Math.min(100, Math.max(1, limit)), accountId });
      return { ...page, data: page.data.map(toApi) };
    },
    async results(id, { cursor = null, limit = 100, accountId } = {}) {
      checkPaging(cursor, limit, /^\d{1,6}$/);
      await mustGet(id, { accountId });
      return store.results(id, { cursor, limit: Math.min(1000, Math.max(1, limit)) });
    },
    async export(id, format, scope) {
      const job = await mustGet(id, scope);
      return Readable.from(exportLines(store, job, format));
    },
    async events(id, scope) {
      await mustGet(id, scope);
      return store.deliveries(id);
    },
    async resendEvent(eventId, scope, resendOptions) {
      if (!deliveries) throw new Error('this runner delivers no webhooks: give it the webhooks option');
      const event = await deliveries.resend(eventId, scope, resendOptions);
      if (!event) throw new ServiceError('not_found', `no event ${JSON.stringify(eventId)}`);
      return event;
    },
    async cancel(id, scope) {
      const before = await mustGet(id, scope);
      const job = (await store.cancelJob(id, now(), scope)) as JobRecord;
      for (const [lease, controller] of inFlight)
        if (lease.jobId === id) controller.abort(new Error('job cancelled'));
      if (before.status !== 'cancelled' && job.status === 'cancelled')
        await options.onJobFinished?.(toApi(job));
      return toApi(job);
    },
    start() {
      if (running) return;
      running = true;
      stop = new AbortController();
      const { signal } = stop;
      stopped = new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      workers = Array.from({ length: concurrency }, () => worker());
      deliveries?.start();
      sweeper?.start();
    },
    idle() {
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    async close({ timeoutMs = 10_000 } = {}) {
      stop.abort();
      const drained = Promise.all(workers);
      const timer = new Promise((resolve) => setTimeout(resolve, timeoutMs).unref());
      await Promise.race([drained, timer]);
      for (const controller of inFlight.values()) controller.abort(new Error('runner closing'));
      await drained;
      await deliveries?.close();
      await sweeper?.close();
      running = false;
      for (const resolve of idleWaiters) resolve();
      idleWaiters = [];
    },
  };
}

/** The start (ms) of the UTC day `ms` falls in. */
function utcDayStart(ms: number): number {
  return ms - (((ms % 86_400_000) + 86_400_000) % 86_400_000);
}

function checkPaging(cursor: string | null, limit: number, shape: RegExp): void {
  if (cursor !== null && (typeof cursor !== 'string' || !shape.test(cursor))) {
    throw new ServiceError('invalid_request', `invalid cursor ${JSON.stringify(cursor)}`);
  }
  if (!Number.isInteger(limit) || limit < 1)
    throw new ServiceError('invalid_request', `limit must be a positive integer, got ${limit}`);
}
