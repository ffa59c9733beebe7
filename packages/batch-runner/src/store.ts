import type { BatchCounts, BatchJobStatus, BatchJobType } from '@svc/core';

/** A job as stored: the API's job fields (DESIGN §6) minus what is derived at read time. */
export interface JobRecord {
  id: string;
  type: BatchJobType;
  status: BatchJobStatus;
  total: number;
  /** Records with a committed result (successful or not). */
  processed: number;
  /** Records whose result is an error. */
  failed: number;
  /** Per-outcome counters, kept incrementally with every commit. */
  counts: BatchCounts;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  webhook_url: string | null;
  idempotency_key: string | null;
  error: { code: string; message: string } | null;
}

/** What a job is created from. */
export interface NewJob {
  id: string;
  type: BatchJobType;
  records: readonly string[];
  webhook_url: string | null;
  idempotency_key: string | null;
  /** Records per chunk (the unit of leasing and committing). */
  chunkSize: number;
  now: Date;
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
  /** The counter this result increments (`deliverable`…); failures count in `failed` only. */
  countKey?: string | null;
}

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
  /** Creates a job and its chunks; with an idempotency key already used, returns that job instead. */
  createJob(job: NewJob): Promise<{ job: JobRecord; created: boolean }>;
  getJob(id: string): Promise<JobRecord | null>;
  /** Newest first. */
  listJobs(options: { cursor?: string | null; limit: number }): Promise<Page<JobRecord>>;
  /**
   * Leases the next chunk that is unclaimed, or whose lease expired, of a queued or running job,
   * and marks the job running. Null when nothing is claimable.
   */
  claimChunk(owner: string, now: number, leaseMs: number): Promise<ChunkLease | null>;
  /** Extends a lease the owner still holds; false when it was lost. */
  renewLease(lease: ChunkLease, now: number, leaseMs: number): Promise<boolean>;
  /**
   * Commits the results of a leased chunk together with the counters; completes the job when it
   * was the last chunk. `lost_lease` (nothing written) when another owner holds the chunk now.
   */
  commitChunk(
    lease: ChunkLease,
    results: readonly RecordResult[],
    now: number,
  ): Promise<'committed' | 'lost_lease'>;
  /** Gives a lease back so the chunk can be claimed again (after `retryAt`, ms since epoch). */
  releaseChunk(lease: ChunkLease, retryAt: number): Promise<void>;
  /** Cancels a queued or running job: unclaimed chunks are never handed out again. */
  cancelJob(id: string, now: number): Promise<JobRecord | null>;
  /** Results in record order, page by page. */
  results(jobId: string, options: { cursor?: string | null; limit: number }): Promise<Page<RecordResult>>;
  close(): Promise<void>;
}
