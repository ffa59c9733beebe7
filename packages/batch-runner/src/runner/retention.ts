import type { Store } from '../store.js';
import { yieldToEventLoop } from '../yield.js';

/** How long finished jobs are kept, and how often they are looked for. */
export interface RetentionOptions {
  /** Ms a live job is kept after it finished; null keeps them forever. */
  liveMs: number | null;
  /** Ms a sandbox job is kept after it finished; null keeps them forever. */
  sandboxMs: number | null;
  /** Wait between sweeps once started. @default 600000 (10 min) */
  intervalMs?: number;
  /** Jobs deleted per store call; the event loop runs between calls. @default 10 */
  jobsPerSlice?: number;
  /** Clock in ms. @default Date.now */
  now?: () => number;
  /** A sweep that failed (the next one tries again). @default none */
  onError?: (error: Error) => void;
}

/** Deletes finished jobs past their retention, now (`sweep`) or periodically (`start`). */
export interface RetentionSweeper {
  /** One sweep: every expired job of both kinds, in slices. Resolves with how many were deleted. */
  sweep(): Promise<{ live: number; sandbox: number }>;
  /** Sweeps now and then every `intervalMs` (idempotent). */
  start(): void;
  /** Stops the timer and waits for a sweep in progress. */
  close(): Promise<void>;
}

/**
 * The retention sweeper: finished jobs (and their records, results, webhook events and attempts)
 * are deleted once they are older than their kind's retention, live and sandbox apart. Jobs with
 * a webhook event still pending are kept until the event is done (Store.deleteFinishedJobs).
 */
export function createRetentionSweeper(store: Store, options: RetentionOptions): RetentionSweeper {
  const now = options.now ?? Date.now;
  const intervalMs = options.intervalMs ?? 600_000;
  const limit = options.jobsPerSlice ?? 10;
  for (const [name, value] of Object.entries({ liveMs: options.liveMs, sandboxMs: options.sandboxMs }))
    if (value !== null && !(Number.isFinite(value) && value >= 0))
      throw new TypeError(`retention ${name} must be a number of ms or null, got ${value}`);
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let closed = false;

  async function sweepKind(sandbox: boolean, keepMs: number | null): Promise<number> {
    if (keepMs === null) return 0;
    let deleted = 0;
    for (;;) {
      const count = await store.deleteFinishedJobs({ finishedBefore: now() - keepMs, sandbox, limit });
      deleted += count;
      if (count < limit || closed) return deleted;
      await yieldToEventLoop();
    }
  }

  async function sweep() {
    const live = await sweepKind(false, options.liveMs);
    const sandbox = await sweepKind(true, options.sandboxMs);
    return { live, sandbox };
  }

  return {
    sweep,
    start() {
      if (timer) return;
      closed = false;
      const tick = () => {
        running = sweep()
          .catch((error: Error) => options.onError?.(error))
          .finally(() => {
            if (timer) timer = setTimeout(tick, intervalMs).unref();
          });
      };
      timer = setTimeout(tick, 0).unref();
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
