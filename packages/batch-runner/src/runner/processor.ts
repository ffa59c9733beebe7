import type { BatchJobType } from '@svc/core';

/** One record handed to a processor. */
export interface ProcessorRecord {
  index: number;
  input: string;
}

/** What a processor says about one record. */
export type ProcessorOutcome =
  | { index: number; ok: true; result: unknown; countKey?: string | readonly string[] | null }
  | { index: number; ok: false; error: { code: string; message: string } };

/**
 * Handles the records of one job type, a chunk at a time (so `verify_email` can group a chunk by
 * MX). A record it cannot handle is an `ok: false` outcome; throwing fails the whole chunk, which
 * is retried with backoff. Work must stop when `signal` aborts (cancel, shutdown).
 */
export interface Processor {
  type: BatchJobType;
  /**
   * Records per chunk for jobs of this type, when the work groups better in bigger or smaller
   * chunks than the runner's default (verify_email shares SMTP sessions within a chunk).
   * @default the runner's chunkSize
   */
  chunkSize?: number;
  process(records: ProcessorRecord[], context: ProcessorContext): Promise<ProcessorOutcome[]>;
}

/** What a processor is told about the chunk's job. */
export interface ProcessorContext {
  signal: AbortSignal;
  jobId: string;
  /**
   * The job is a sandbox job (submitted with `sandbox: true`, as a server does for test keys): no
   * outbound calls, the sandbox's answers. False for every job of a library or the CLI.
   */
  sandbox: boolean;
  /**
   * The job's owning account (a server's `acct_…`), or null for a job without one (a library's,
   * the CLI's). `verify_email` keeps each account's cached results apart by it.
   * @default null
   */
  accountId?: string | null;
}
