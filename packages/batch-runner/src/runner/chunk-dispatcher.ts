import type { ChunkLease, JobRecord, Store } from '../store.js';

/**
 * Decides how a runner finds work (DESIGN §6, the Dispatcher seam). The default asks the store
 * for the next claimable chunk and, when there is none, waits a poll interval. A queue-backed
 * dispatcher (BullMQ, pg-boss) would enqueue a message per chunk in `submitted`, block on its
 * queue in `waitForWork`, and still lease through the store in `claim`, so leases, commits and
 * counters stay in one place and a redelivered message finds its chunk done.
 */
export interface ChunkDispatcher {
  /** Leases the next chunk of a job of `types` for `owner`, or null when there is none now. */
  claim(owner: string, now: number, leaseMs: number, types: readonly string[]): Promise<ChunkLease | null>;
  /** Told of every new job (not of an idempotent repeat) and how many chunks it has. @default nothing */
  submitted?(job: JobRecord, info: { chunks: number }): Promise<void>;
  /**
   * Told how a lease it handed out ended: its chunk committed, released (to be claimed again from
   * `retryAt`, ms), or lost to another owner. A queue acknowledges or re-schedules its message
   * here. Never throws into the runner. @default nothing
   */
  settled?(lease: ChunkLease, outcome: ChunkOutcome): Promise<void>;
  /**
   * Resolves when work may be there again; the runner passes its poll interval, and a signal
   * that aborts when it closes (the runner stops waiting then either way).
   */
  waitForWork(pollIntervalMs: number, signal: AbortSignal): Promise<void>;
}

/** How a leased chunk ended, as the runner tells its dispatcher. */
export type ChunkOutcome =
  | { state: 'committed' }
  | { state: 'released'; retryAt: number }
  | { state: 'lost' };

/** The default: claims straight from the store, polling when idle. */
export function storeDispatcher(store: Store): ChunkDispatcher {
  return {
    claim: (owner, now, leaseMs, types) => store.claimChunk(owner, now, leaseMs, types),
    waitForWork: (pollIntervalMs) => new Promise((resolve) => setTimeout(resolve, pollIntervalMs)),
  };
}
