import { describe, expect, it, vi } from 'vitest';
import type { Store } from '../store.js';
import { createMemoryStore } from '../stores/memory.js';
import type { Processor } from './processor.js';
import { createRetentionSweeper } from './retention.js';
import { createBatchRunner } from './runner.js';

const DAY = 86_400_000;
const echo: Processor = {
  type: 'geo_ip',
  process: async (records) => records.map(({ index }) => ({ index, ok: true as const, result: {} })),
};

/** Runs `count` jobs of each kind to completion on `store` with the runner's clock at `at`. */
async function finishedJobs(store: Store, at: number, count: number) {
  const runner = createBatchRunner({ store, processors: [echo], now: () => at });
  const ids = { live: [] as string[], sandbox: [] as string[] };
  for (let index = 0; index < count; index++) {
    ids.live.push((await runner.submit({ type: 'geo_ip', records: ['1.1.1.1'] })).id);
    ids.sandbox.push((await runner.submit({ type: 'geo_ip', records: ['1.1.1.1'], sandbox: true })).id);
  }
  runner.start();
  await runner.idle();
  await runner.close();
  return ids;
}

describe('retention sweeper', () => {
  it('deletes finished jobs once older than their kind’s retention, in slices, by an injected clock', async () => {
    const store = createMemoryStore();
    const t0 = Date.parse('2026-11-27T10:00:00Z');
    const ids = await finishedJobs(store, t0, 5);
    let clock = t0;
    const sweeper = createRetentionSweeper(store, {
      liveMs: 30 * DAY,
      sandboxMs: DAY,
      jobsPerSlice: 2,
      now: () => clock,
    });
    clock = t0 + DAY - 1;
    expect(await sweeper.sweep()).toEqual({ live: 0, sandbox: 0 });
    clock = t0 + DAY + 1;
    // Five sandbox jobs in slices of two: 2, 2, 1.
    expect(await sweeper.sweep()).toEqual({ live: 0, sandbox: 5 });
    for (const id of ids.sandbox) expect(await store.getJob(id)).toBeNull();
    for (const id of ids.live) expect(await store.getJob(id)).not.toBeNull();
    clock = t0 + 30 * DAY + 1;
    expect(await sweeper.sweep()).toEqual({ live: 5, sandbox: 0 });
    // null keeps a kind forever.
    const keepLive = createRetentionSweeper(store, { liveMs: null, sandboxMs: 0, now: () => clock });
    const more = await finishedJobs(store, t0, 1);
    expect(await keepLive.sweep()).toEqual({ live: 0, sandbox: 1 });
    expect(await store.getJob(more.live[0] as string)).not.toBeNull();
  });

  it('runs periodically while its runner runs, and stops with it', async () => {
    const store = createMemoryStore();
    const t0 = Date.parse('2026-11-27T10:00:00Z');
    const ids = await finishedJobs(store, t0, 1);
    let clock = t0;
    let sweeps = 0;
    const counting: Store = {
      ...store,
      deleteFinishedJobs: (options) => {
        sweeps++;
        return store.deleteFinishedJobs(options);
      },
    };
    const runner = createBatchRunner({
      store: counting,
      processors: [echo],
      now: () => clock,
      retention: { liveMs: 30 * DAY, sandboxMs: DAY, intervalMs: 10 },
    });
    // The sweeps' timers run on vitest's fake clock: time passes when told to.
    vi.useFakeTimers();
    try {
      runner.start();
      // The first sweep at once, the next after the 10 ms interval (each sweep asks once per kind),
      // and nothing is old enough yet.
      await vi.advanceTimersByTimeAsync(10);
      expect(sweeps).toBeGreaterThanOrEqual(4);
      expect(await store.getJob(ids.sandbox[0] as string)).not.toBeNull();
      clock = t0 + DAY + 1;
      await vi.advanceTimersByTimeAsync(10);
      expect(await store.getJob(ids.sandbox[0] as string)).toBeNull();
      expect(await store.getJob(ids.live[0] as string)).not.toBeNull();
      await runner.close();
      const after = sweeps;
      // Closed: a minute of intervals passes without a sweep.
      await vi.advanceTimersByTimeAsync(60_000);
      expect(sweeps).toBe(after);
    } finally {
      vi.useRealTimers();
    }
  });
});
