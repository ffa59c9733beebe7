// Table 1 of the scale suite: one 50,000-record job with a trivial processor on one store, in a
// process of its own so its peak RSS is the job's. The parent runs this file with
// `--scale-store-child sqlite <dir>` or `--scale-store-child postgres <url> <schema>` and reads
// one JSON line back.
import { join } from 'node:path';
import { createBatchRunner, createPostgresStore, createSqliteStore, type Store } from '@svc/batch-runner';
import { trackPeakRss } from '../lib/measure.js';
import { SCALE_RECORDS, scaleRecords, trivialProcessor } from './job.js';

/** What the child reports. */
export interface StoreChildReport {
  seconds: number;
  /** Peak resident set of the child while the job ran, sampled every 10 ms, MB. */
  peakRssMb: number;
  /** RSS after loading the modules and opening the store, before submitting, MB. */
  idleRssMb: number;
}

async function openStore(kind: string, where: string, schema: string | undefined): Promise<Store> {
  if (kind === 'sqlite') return createSqliteStore({ path: join(where, 'jobs.db') });
  if (kind === 'postgres') return createPostgresStore({ connectionString: where, schema });
  throw new Error(`unknown store ${kind}`);
}

async function main(kind: string, where: string, schema: string | undefined): Promise<StoreChildReport> {
  const store = await openStore(kind, where, schema);
  // The embedded default's settings (the SQLite benchmark in batch/ uses the same), one process.
  const runner = createBatchRunner({
    store,
    processors: [trivialProcessor],
    chunkSize: 250,
    concurrency: 4,
    pollIntervalMs: 5,
  });
  const idleRssMb = process.memoryUsage().rss / 1e6;
  const stopTracking = trackPeakRss();
  const started = performance.now();
  const job = await runner.submit({ type: 'geo_ip', records: scaleRecords(SCALE_RECORDS) });
  runner.start();
  while ((await runner.get(job.id)).status !== 'completed')
    await new Promise((resolve) => setTimeout(resolve, 5));
  const seconds = (performance.now() - started) / 1000;
  const peakRssMb = stopTracking();
  const done = await runner.get(job.id);
  if (done.processed !== SCALE_RECORDS) throw new Error(`processed ${done.processed} of ${SCALE_RECORDS}`);
  await runner.close();
  await store.close();
  return { seconds, peakRssMb, idleRssMb };
}

if (process.argv[2] === '--scale-store-child') {
  const [kind = 'sqlite', where = '.', schema] = process.argv.slice(3);
  const report = await main(kind, where, schema);
  process.stdout.write(`${JSON.stringify(report)}\n`);
}
