// One 50,000-record job in a process of its own, so its peak RSS is the job's and not the
// benchmark harness's (which holds the other suites' data and the Stripe SDK). The parent forks
// this file with `--batch-job-child <memory|sqlite> <dir>` and reads one JSON line back.
import { join } from 'node:path';
import { createBatchRunner, createMemoryStore, createSqliteStore, type Processor } from '@svc/batch-runner';
import { trackPeakRss } from '../lib/measure.js';

export const RECORDS = 50_000;

/** What the child reports. */
export interface JobChildReport {
  seconds: number;
  /** Peak resident set of the child while the job ran, sampled every 10 ms, MB. */
  peakRssMb: number;
  /** RSS after loading the modules and opening the store, before submitting, MB. */
  idleRssMb: number;
}

// A trivial asynchronous processor: the runner and the store are what is measured.
const trivial: Processor = {
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

async function main(kind: string, dir: string): Promise<JobChildReport> {
  const store =
    kind === 'sqlite' ? await createSqliteStore({ path: join(dir, 'jobs.db') }) : createMemoryStore();
  const runner = createBatchRunner({
    store,
    processors: [trivial],
    chunkSize: 250,
    concurrency: 4,
    pollIntervalMs: 5,
  });
  const idleRssMb = process.memoryUsage().rss / 1e6;
  // Sampled, not getrusage: ru_maxrss survives exec on Linux and can carry the parent's peak.
  const stopTracking = trackPeakRss();
  const started = performance.now();
  const records = Array.from({ length: RECORDS }, (_, index) => `203.0.${index >> 8}.${index & 255}`);
  const job = await runner.submit({ type: 'geo_ip', records });
  runner.start();
  while ((await runner.get(job.id)).status !== 'completed')
    await new Promise((resolve) => setTimeout(resolve, 5));
  const seconds = (performance.now() - started) / 1000;
  await runner.close();
  await store.close();
  return { seconds, peakRssMb: stopTracking(), idleRssMb };
}

if (process.argv[2] === '--batch-job-child') {
  const report = await main(process.argv[3] ?? 'memory', process.argv[4] ?? '.');
  process.stdout.write(`${JSON.stringify(report)}\n`);
}
