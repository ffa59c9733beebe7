import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { describeControlPlaneStore } from '../testing/describe-control-plane-store.js';
import type { ControlPlaneStore } from './store.js';
import { createMemoryControlPlaneStore } from './stores/memory.js';
import { createSqliteControlPlaneStore } from './stores/sqlite.js';
import { createWriteBehindUsageStore } from './write-behind-usage.js';

describeControlPlaneStore('write-behind usage over memory', {
  create: async () => createWriteBehindUsageStore(createMemoryControlPlaneStore()),
});

const dir = mkdtempSync(join(tmpdir(), 'svc-write-behind-'));
let file = 0;
describeControlPlaneStore('write-behind usage over SQLite', {
  create: async () =>
    createWriteBehindUsageStore(
      await createSqliteControlPlaneStore({ path: join(dir, `store-${++file}.db`) }),
    ),
});

/** A real memory store that counts the usage writes reaching it and can be made to fail them. */
function countingStore() {
  const inner = createMemoryControlPlaneStore();
  const writes = { recordUsage: 0, addUsage: 0, failing: false };
  const store: ControlPlaneStore = {
    ...inner,
    recordUsage: (...args) => {
      writes.recordUsage++;
      return inner.recordUsage(...args);
    },
    addUsage: (lines) => {
      writes.addUsage++;
      return writes.failing ? Promise.reject(new Error('disk full')) : inner.addUsage(lines);
    },
  };
  return { inner, store, writes };
}

/** The flush timer and the totals' ages run on vitest's fake clock: time passes when told to. */
const passes = (ms: number) => vi.advanceTimersByTimeAsync(ms);

describe('write-behind usage', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers exact totals at once and writes the calls in one transaction per interval', async () => {
    const { inner, store, writes } = countingStore();
    const usage = createWriteBehindUsageStore(store, { flushIntervalMs: 40 });
    const totals = [];
    for (let i = 0; i < 50; i++) {
      totals.push(
        await usage.recordUsage('acct_a', i % 2 ? 'geo_ip' : 'verify_email', '2026-11', 1, '2026-11-23'),
      );
    }
    expect(totals).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(await usage.usedUnits('acct_a', '2026-11')).toBe(50);
    // Nothing reached the store yet.
    expect(await inner.usedUnits('acct_a', '2026-11')).toBe(0);
    await passes(120);
    expect(writes).toMatchObject({ recordUsage: 0, addUsage: 1 });
    expect(await inner.usage('acct_a', '2026-11')).toEqual([
      { endpoint: 'geo_ip', calls: 25, units: 25 },
      { endpoint: 'verify_email', calls: 25, units: 25 },
    ]);
    expect(await inner.usageByDay('acct_a', '2026-11')).toEqual([
      { day: '2026-11-23', endpoint: 'geo_ip', calls: 25, units: 25 },
      { day: '2026-11-23', endpoint: 'verify_email', calls: 25, units: 25 },
    ]);
    // An idle interval writes nothing.
    await passes(100);
    expect(writes.addUsage).toBe(1);
    await usage.close();
  });

  it('answers recordUsageSync as recordUsage does, or records nothing; its arguments checked the same', async () => {
    const store = createWriteBehindUsageStore(createMemoryControlPlaneStore());
    const a = { id: 'acct_a' };
    const recordSync = store.recordUsageSync.bind(store);
    // Whatever the mix of the two ways, the totals run on, and what answered undefined is not counted.
    let expected = 0;
    for (let i = 0; i < 6; i++) {
      const units = i + 1;
      const at = recordSync(a.id, 'geo_ip', '2026-11', units, '2026-11-02');
      if (at === undefined) {
        expect(await store.recordUsage(a.id, 'geo_ip', '2026-11', units, '2026-11-02')).toBe(
          expected + units,
        );
      } else {
        expect(at).toBe(expected + units);
      }
      expected += units;
    }
    expect(await store.usedUnits(a.id, '2026-11')).toBe(expected);
    expect(await store.usage(a.id, '2026-11')).toEqual([{ endpoint: 'geo_ip', calls: 6, units: expected }]);
    expect(await store.usageByDay(a.id, '2026-11')).toEqual([
      { day: '2026-11-02', endpoint: 'geo_ip', calls: 6, units: expected },
    ]);
    // Its arguments are checked as recordUsage's are.
    expect(() => recordSync(a.id, 'geo_ip', '2026-11', 1, '2026-12-01')).toThrow(/day must be YYYY-MM-DD/);
    expect(() => recordSync(a.id, 'geo_ip', 'November', 1)).toThrow(TypeError);
    expect(() => recordSync(a.id, 'geo_ip', '2026-11', 0)).toThrow(TypeError);
    expect(await store.usedUnits(a.id, '2026-11')).toBe(expected);
    await store.close();
  });

  it('answers recordUsageSync at once while the month total is known, and undefined (recording nothing) when it must be read', async () => {
    const { inner, store } = countingStore();
    await inner.recordUsage('acct_a', 'geo_ip', '2026-11', 10);
    const usage = createWriteBehindUsageStore(store, { flushIntervalMs: 60_000, totalMaxAgeMs: 50 });
    // Never read: the caller must go through recordUsage, which reads the store's 10 first.
    expect(usage.recordUsageSync('acct_a', 'geo_ip', '2026-11', 1)).toBeUndefined();
    expect(await usage.recordUsage('acct_a', 'geo_ip', '2026-11', 1)).toBe(11);
    expect(usage.recordUsageSync('acct_a', 'geo_ip', '2026-11', 2, '2026-11-23')).toBe(13);
    expect(usage.recordUsageSync('acct_a', 'verify_email', '2026-11', 1, '2026-11-23')).toBe(14);
    // Another process adds 100 to the store: once our figure is older than totalMaxAgeMs, it is
    // read again, so the quick path steps aside.
    await inner.recordUsage('acct_a', 'geo_ip', '2026-11', 100);
    await passes(80);
    expect(usage.recordUsageSync('acct_a', 'geo_ip', '2026-11', 1)).toBeUndefined();
    expect(await usage.recordUsage('acct_a', 'geo_ip', '2026-11', 1)).toBe(115);
    await usage.flush();
    expect(await inner.usage('acct_a', '2026-11')).toEqual([
      { endpoint: 'geo_ip', calls: 5, units: 114 },
      { endpoint: 'verify_email', calls: 1, units: 1 },
    ]);
    await usage.close();
  });

  it('keeps each account, endpoint and day apart when calls of several interleave', async () => {
    const { inner, store } = countingStore();
    const usage = createWriteBehindUsageStore(store, { flushIntervalMs: 60_000 });
    const calls = [
      ['acct_a', 'geo_ip', '2026-11-02'],
      ['acct_a', 'geo_ip', '2026-11-02'],
      ['acct_b', 'geo_ip', '2026-11-02'],
      ['acct_a', 'verify_email', '2026-11-02'],
      ['acct_a', 'geo_ip', '2026-11-03'],
      ['acct_a', 'geo_ip', '2026-11-03'],
      ['acct_b', 'geo_ip', '2026-11-02'],
      ['acct_a', 'geo_ip', '2026-11-02'],
    ] as const;
    const totals = [];
    for (const [account, endpoint, day] of calls)
      totals.push(await usage.recordUsage(account, endpoint, '2026-11', 1, day));
    expect(totals).toEqual([1, 2, 1, 3, 4, 5, 2, 6]);
    await usage.flush();
    expect(await inner.usageByDay('acct_a', '2026-11')).toEqual([
      { day: '2026-11-02', endpoint: 'geo_ip', calls: 3, units: 3 },
      { day: '2026-11-02', endpoint: 'verify_email', calls: 1, units: 1 },
      { day: '2026-11-03', endpoint: 'geo_ip', calls: 2, units: 2 },
    ]);
    expect(await inner.usageByDay('acct_b', '2026-11')).toEqual([
      { day: '2026-11-02', endpoint: 'geo_ip', calls: 2, units: 2 },
    ]);
    // A day outside the month is refused even right after good calls of that month.
    expect(() => usage.recordUsageSync('acct_a', 'geo_ip', '2026-11', 1, '2026-12-01')).toThrow(
      /within 2026-11/,
    );
    await usage.close();
  });

  it('writes what is buffered before the invoice is read and on close', async () => {
    const path = join(dir, 'close.db');
    const usage = createWriteBehindUsageStore(await createSqliteControlPlaneStore({ path }), {
      flushIntervalMs: 60_000,
    });
    await usage.recordUsage('acct_a', 'geo_ip', '2026-11', 2);
    expect(await usage.usage('acct_a', '2026-11')).toEqual([{ endpoint: 'geo_ip', calls: 1, units: 2 }]);
    await usage.recordUsage('acct_a', 'geo_ip', '2026-11', 3);
    await usage.close();
    await expect(usage.recordUsage('acct_a', 'geo_ip', '2026-11', 1)).rejects.toThrow('closed');
    const after = await createSqliteControlPlaneStore({ path });
    expect(await after.usage('acct_a', '2026-11')).toEqual([{ endpoint: 'geo_ip', calls: 2, units: 5 }]);
    await after.close();
  });

  it('keeps the usage of a failed write for the next one, and the totals throughout', async () => {
    const { inner, store, writes } = countingStore();
    const errors: Error[] = [];
    const usage = createWriteBehindUsageStore(store, {
      flushIntervalMs: 30,
      onFlushError: (error) => errors.push(error),
    });
    writes.failing = true;
    expect(await usage.recordUsage('acct_a', 'geo_ip', '2026-11', 4)).toBe(4);
    await passes(100);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]?.message).toBe(
      'could not write the buffered usage to the control-plane store: disk full',
    );
    expect(await usage.recordUsage('acct_a', 'geo_ip', '2026-11', 1)).toBe(5);
    await expect(usage.flush()).rejects.toThrow('disk full');
    writes.failing = false;
    await usage.flush();
    expect(await inner.usage('acct_a', '2026-11')).toEqual([{ endpoint: 'geo_ip', calls: 2, units: 5 }]);
    expect(await usage.usedUnits('acct_a', '2026-11')).toBe(5);
    await usage.close();
  });

  it('sees what another process flushed once its total is older than totalMaxAgeMs', async () => {
    const path = join(dir, 'two-processes.db');
    const one = createWriteBehindUsageStore(await createSqliteControlPlaneStore({ path }), {
      flushIntervalMs: 20,
    });
    const two = createWriteBehindUsageStore(await createSqliteControlPlaneStore({ path }), {
      flushIntervalMs: 20,
      totalMaxAgeMs: 50,
    });
    expect(await two.usedUnits('acct_a', '2026-11')).toBe(0);
    await one.recordUsage('acct_a', 'geo_ip', '2026-11', 7);
    await passes(120);
    expect(await two.usedUnits('acct_a', '2026-11')).toBe(7);
    expect(await two.recordUsage('acct_a', 'geo_ip', '2026-11', 1)).toBe(8);
    await two.close();
    await one.close();
    const after = await createSqliteControlPlaneStore({ path });
    expect(await after.usage('acct_a', '2026-11')).toEqual([{ endpoint: 'geo_ip', calls: 2, units: 8 }]);
    await after.close();
  });

  it('refuses intervals that cannot work, naming them', () => {
    const store = createMemoryControlPlaneStore();
    expect(() => createWriteBehindUsageStore(store, { flushIntervalMs: 0 })).toThrow(
      'flushIntervalMs must be a whole number ≥ 1, got 0',
    );
    expect(() => createWriteBehindUsageStore(store, { totalMaxAgeMs: -1 })).toThrow(
      'totalMaxAgeMs must be a whole number ≥ 0, got -1',
    );
  });
});
