import type { Processor } from '@svc/batch-runner';

/**
 * Records of the scale suite's job: 50,000, the most a job may hold. `SCALE_RECORDS` makes it
 * smaller for a quick look while developing; the figures in the READMEs are from 50,000.
 */
export const SCALE_RECORDS = Number(process.env.SCALE_RECORDS ?? 50_000);

/** Milliseconds the waiting processor spends on each record. */
export const WAIT_PER_RECORD_MS = 5;

/** Distinct addresses, one per record. */
export function scaleRecords(count: number): string[] {
  return Array.from(
    { length: count },
    (_, index) => `203.${index >> 16}.${(index >> 8) & 255}.${index & 255}`,
  );
}

/** Does nothing per record (one tick per chunk): the runner and the store are what is measured. */
export const trivialProcessor: Processor = {
  type: 'geo_ip',
  async process(records) {
    await new Promise((resolve) => setImmediate(resolve));
    return records.map(({ index, input }) => ({
      index,
      ok: true as const,
      result: { input },
      countKey: 'done',
    }));
  },
};

/**
 * Waits WAIT_PER_RECORD_MS per record, one record after another, as a worker calling an upstream
 * that answers in 5 ms and allows one request at a time would: I/O wait, not CPU.
 */
export const waitingProcessor: Processor = {
  type: 'geo_ip',
  async process(records, { signal }) {
    const results = [];
    for (const { index, input } of records) {
      signal.throwIfAborted();
      await new Promise((resolve) => setTimeout(resolve, WAIT_PER_RECORD_MS));
      results.push({ index, ok: true as const, result: { input }, countKey: 'done' });
    }
    return results;
  },
};
