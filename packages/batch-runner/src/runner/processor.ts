import type { BatchJobType } from '@svc/core';

/** One record handed to a processor. */
export interface ProcessorRecord {
  index: number;
  input: string;
}

/** What a processor says about one record. */
export type ProcessorOutcome =
  | { index: number; ok: true; result: unknown; countKey?: string | null }
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
  process(
    records: ProcessorRecord[],
    context: { signal: AbortSignal; jobId: string },
  ): Promise<ProcessorOutcome[]>;
}
