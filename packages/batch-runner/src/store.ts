import type { BatchJob, BatchJobType } from '@svc/core';

/**
 * A job as stored: the API's job (DESIGN §6) without what is derived at read time, plus its
 * idempotency key and the hash of the request it was created from (to tell a retried request
 * from a different one reusing the key).
 */
export type JobRecord = Omit<BatchJob, 'object' | 'results_url'> & {
  /** The account that owns the job (the server's `acct_…`), or null for a job without one (library, CLI). */
  account_id: string | null;
  /**
   * A sandbox job (a server's test key): its processors must make no outbound calls and answer
   * as the sandbox does (they get `sandbox: true` in their context).
   */
  sandbox: boolean;
  idempotency_key: string | null;
  request_hash: string | null;
};

/**
 * Whose jobs a read may see. Omitted: every job (a library or the CLI, which have no accounts).
 * Given: only the jobs of that account; another account's job (or one without an owner) reads
 * as missing, so a server can answer 404 without telling whether the id exists.
 */
export interface JobScope {
  accountId?: string;
}

/**
 * Limits a new job must fit, checked by createJob atomically with the insert (a server gives
 * them for its test keys' sandbox jobs). Only the jobs of the new job's account and kind (sandbox
 * or not) count; a retried idempotency key gets its job back without being checked.
 */
export interface JobQuota {
  /** Jobs created from `dayStart` on, this one included, at most. @default no limit */
  jobsPerDay?: number;
  /** Start of the day `jobsPerDay` counts (ms; a server takes the UTC day). */
  dayStart: number;
  /** Records not yet processed in queued and running jobs, this job's included, at most. @default no limit */
  recordsInFlight?: number;
}

/** What a job is created from. */
export interface NewJob {
  id: string;
  /** The owning account; idempotency keys are unique per account. @default null (no owner) */
  account_id?: string | null;
  /** @default false */
  sandbox?: boolean;
  type: BatchJobType;
  records: readonly string[];
  webhook_url: string | null;
  idempotency_key: string | null;
  /** SHA-256 of the request (type, records, webhook_url), kept with the idempotency key. */
  request_hash: string | null;
  /** Records per chunk (the unit of leasing and committing). */
  chunkSize: number;
  now: Date;
  /** Refuse the job (`rate_limited`, see checkJobQuota) unless it fits. @default none */
  quota?: JobQuota;
}

/** A leased chunk: the holder may process these records until `leaseUntil` (ms since epoch). */
export interface ChunkLease {
  jobId: string;
  chunk: number;
  owner: string;
  leaseUntil: number;
  /** How many times this chunk was claimed before (0 on the first claim). */
  attempts: number;
  records: Array<{ index: number; input: string }>;
}

/** The result of one record, as committed. */
export interface RecordResult {
  index: number;
  input: string;
  ok: boolean;
  /** The processor's result (JSON-serialisable) when ok. */
  result?: unknown;
  error?: { code: string; message: string };
  /**
   * The counter(s) this result increments (`deliverable`…, or `['unknown', 'dns_unavailable']` for
   * a state and a sub-count); failures count in `failed` only.
   */
  countKey?: string | readonly string[] | null;
  /**
   * The runner gave up on this record (its chunk failed on every attempt, or nothing can process
   * the job's type), as opposed to a record the processor judged bad. A job with any abandoned
   * record ends `failed` (DESIGN §6: per-record errors alone never fail a job).
   */
  abandoned?: boolean;
}

/** A webhook event waiting in the outbox, leased to one deliverer. */
export interface Delivery {
  eventId: string;
  jobId: string;
  type: 'batch.completed' | 'batch.failed' | 'batch.cancelled';
  url: string;
  /** Unix seconds when the event was created (the envelope's `created`). */
  created: number;
  /** Attempts made so far. */
  attempts: number;
  /** When the first attempt was made (ms), or null before it. */
  firstAttemptAt: number | null;
  owner: string;
  /** The job's owning account (whose webhook secrets sign), or null. */
  accountId: string | null;
  /**
   * Set when the event was leased by `claimEvent` for a resend: its state before the resend,
   * which a failed resend attempt keeps (a resend is one more attempt, not a new schedule).
   */
  resendOf?: DeliveryState;
}

/** Where an event stands: waiting for its next attempt, or finished one way or another. */
export type DeliveryState = 'pending' | 'delivered' | 'gone' | 'failed';

/** A webhook event of a job with every delivery attempt (oldest first). */
export interface EventView {
  eventId: string;
  jobId: string;
  type: Delivery['type'];
  url: string;
  /** Unix seconds (the envelope's `created`). */
  created: number;
  state: DeliveryState;
  /** When the next scheduled attempt is due (ms), or null when none is. */
  nextAttemptAt: number | null;
  attempts: DeliveryAttempt[];
}

/** One logged delivery attempt. */
export interface DeliveryAttempt {
  at: number;
  status: number | null;
  latencyMs: number;
  error: string | null;
  /** `resend` for an attempt asked for by `resendEvent`; absent for the schedule's own. */
  trigger?: 'schedule' | 'resend';
  /**
   * Begun (`beginAttempt`, before the request went out) and not completed yet: the attempt is
   * being made, or its deliverer stopped during it. The next attempt on the event closes such an
   * attempt as interrupted (`ATTEMPT_INTERRUPTED`): the receiver may have got it. Absent otherwise.
   */
  inProgress?: true;
}

/** What happens to an event after an attempt. */
export type DeliveryOutcome =
  | { state: 'delivered' }
  | { state: 'gone' }
  | { state: 'failed' }
  | { state: 'pending'; nextAttemptAt: number };

/** A page of results or jobs. */
export interface Page<T> {
  data: T[];
  /** Opaque position of the next page, or null at the end. */
  next_cursor: string | null;
  has_more: boolean;
}

/**
 * Where jobs, chunks, results and counters live. Every method is atomic on its own; the one
 * that matters most is commitChunk, which writes a chunk's results and the job's counters in
 * one transaction and only while the caller still holds the lease, so a crash or a lost lease
 * never loses or double-counts a record. A Postgres store maps claimChunk to
 * `UPDATE … WHERE (owner IS NULL OR lease_until < now) … FOR UPDATE SKIP LOCKED`; a queue
 * dispatcher (BullMQ, pg-boss) hands out chunk ids and still commits through this interface.
 */
export interface Store {
  /**
   * Creates a job and its chunks; with an idempotency key already used by the same account (or,
   * for a job without an account, by another job without one), returns that job instead. With a
   * `quota`, throws the ServiceError of checkJobQuota when the job does not fit, atomically with
   * the insert (concurrent creates of one account cannot both pass).
   */
  createJob(job: NewJob): Promise<{ job: JobRecord; created: boolean }>;
  /** The job, or null when there is none (or it is outside `scope`). */
  getJob(id: string, scope?: JobScope): Promise<JobRecord | null>;
  /** Newest first; with `accountId`, only that account's jobs. */
  listJobs(options: { cursor?: string | null; limit: number } & JobScope): Promise<Page<JobRecord>>;
  /**
   * Leases the next chunk that is unclaimed, or whose lease expired, of a queued or running job,
   * and marks the job running; only jobs of `types` when given (a runner without a processor for a
   * type must leave its chunks to others). Null when nothing is claimable.
   */
  claimChunk(
    owner: string,
    now: number,
    leaseMs: number,
    types?: readonly string[],
  ): Promise<ChunkLease | null>;
  /** Extends a lease the owner still holds; false when it was lost. */
  renewLease(lease: ChunkLease, now: number, leaseMs: number): Promise<boolean>;
  /**
   * Commits the results of a leased chunk together with the counters; finishes the job when it
   * was the last chunk: `completed`, or `failed` with an `error` when any record was abandoned. `lost_lease` (nothing written) when another owner holds the chunk now.
   */
  commitChunk(
    lease: ChunkLease,
    results: readonly RecordResult[],
    now: number,
  ): Promise<'committed' | 'lost_lease'>;
  /**
   * Gives a lease back so the chunk can be claimed again (after `retryAt`, ms since epoch).
   * `failed` false (a clean shutdown) does not count the claim as a failed attempt.
   */
  releaseChunk(lease: ChunkLease, retryAt: number, failed?: boolean): Promise<void>;
  /**
   * Cancels a queued or running job: unclaimed chunks are never handed out again. Null when there
   * is no such job (or it is outside `scope`, which then stays untouched).
   */
  cancelJob(id: string, now: number, scope?: JobScope): Promise<JobRecord | null>;
  /**
   * Leases the next outbox event due at `now`. Events are written by commitChunk (the last
   * chunk of a job with a webhook_url) and cancelJob in the same transaction as the state
   * change, so a crash can delay an event but never lose it.
   */
  claimDelivery(owner: string, now: number, leaseMs: number): Promise<Delivery | null>;
  /**
   * Leases one event for a resend, whatever its state (a resend is asked for by a person): null
   * when there is no such event (or its job is outside `scope`), `busy` while another deliverer
   * holds it. The attempt is logged with recordAttempt like any other.
   */
  claimEvent(
    eventId: string,
    owner: string,
    now: number,
    leaseMs: number,
    scope?: JobScope,
  ): Promise<Delivery | 'busy' | null>;
  /**
   * Logs an attempt as begun, before its request is sent (status null, `inProgress`), so that a
   * crash between sending and recording still leaves the attempt in the log: delivery is
   * at-least-once, and the log must show every request that may have reached the receiver. An
   * earlier attempt still in progress (its deliverer died) is closed as interrupted. Counts as an
   * attempt (`Delivery.attempts`, the schedule) and sets the first attempt's time. False, and
   * nothing logged, when the lease was lost: the caller must then send nothing.
   */
  beginAttempt(delivery: Delivery, begun: Pick<DeliveryAttempt, 'at' | 'trigger'>): Promise<boolean>;
  /**
   * Completes the attempt begun by beginAttempt with its outcome (or logs a new one when none
   * was begun) and moves the event on; ignored when the lease was lost.
   */
  recordAttempt(delivery: Delivery, attempt: DeliveryAttempt, outcome: DeliveryOutcome): Promise<void>;
  /** Every event of a job with its attempts, oldest first. */
  deliveries(jobId: string): Promise<EventView[]>;
  /** One event with its attempts, or null (also when its job is outside `scope`). */
  getEvent(eventId: string, scope?: JobScope): Promise<EventView | null>;
  /**
   * Deletes up to `limit` jobs of one kind (`sandbox` or not) that finished (completed, failed or
   * cancelled) before `finishedBefore` (ms), with their chunks, records, results, webhook events
   * and attempts; a job with an event still pending delivery is kept until the event is done.
   * Resolves with how many jobs were deleted (fewer than `limit`: none of that kind is left).
   * What a retention sweeper calls, slice after slice.
   */
  deleteFinishedJobs(options: { finishedBefore: number; sandbox: boolean; limit: number }): Promise<number>;
  /** Results in record order, page by page. */
  results(jobId: string, options: { cursor?: string | null; limit: number }): Promise<Page<RecordResult>>;
  close(): Promise<void>;
}
