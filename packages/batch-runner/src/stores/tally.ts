import type { BatchCounts } from '@svc/core';
import type { JobRecord, RecordResult } from '../store.js';

/** What a committed chunk adds to its job's counters; every store applies the same tally. */
export interface ChunkTally {
  processed: number;
  failed: number;
  /** Increments per count key (`deliverable`…), successes only. */
  counts: Record<string, number>;
  /** Records the runner gave up on, and the first one's reason. */
  abandoned: number;
  abandonReason: string | null;
}

export function tallyChunk(results: readonly RecordResult[]): ChunkTally {
  const tally: ChunkTally = {
    processed: results.length,
    failed: 0,
    counts: {},
    abandoned: 0,
    abandonReason: null,
  };
  for (const result of results) {
    if (!result.ok) tally.failed++;
    else if (result.countKey) {
      for (const key of typeof result.countKey === 'string' ? [result.countKey] : result.countKey)
        tally.counts[key] = (tally.counts[key] ?? 0) + 1;
    }
    if (result.abandoned) {
      tally.abandoned++;
      tally.abandonReason ??= result.error?.message ?? null;
    }
  }
  return tally;
}

/** Adds a tally's count increments to a job's counts, in place. */
export function addCounts(counts: BatchCounts, increments: Record<string, number>): void {
  for (const [key, value] of Object.entries(increments)) counts[key] = (counts[key] ?? 0) + value;
}

/**
 * The error of a job that ends `failed` because the runner abandoned some of its records.
 * Shared by the stores so every backend reports the same text.
 */
export function abandonedJobError(
  abandoned: number,
  total: number,
  reason: string | null,
): JobRecord['error'] {
  return {
    code: 'processing_failed',
    message: `${abandoned} of ${total} records could not be processed${reason ? `: ${reason}` : ''}`,
  };
}
