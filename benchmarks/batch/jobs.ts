import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createBatchRunner,
  createMemoryStore,
  createSqliteStore,
  type Processor,
  type Store,
} from '@svc/batch-runner';
import { signPayload, verifyPayload } from '@svc/webhooks';
import Stripe from 'stripe';
import { type Measurement, measure, printTable } from '../lib/measure.js';

const RECORDS = 50_000;

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

async function runJob(store: Store): Promise<void> {
  const runner = createBatchRunner({
    store,
    processors: [trivial],
    chunkSize: 250,
    concurrency: 4,
    pollIntervalMs: 5,
  });
  const records = Array.from({ length: RECORDS }, (_, index) => `203.0.${index >> 8}.${index & 255}`);
  const job = await runner.submit({ type: 'geo_ip', records });
  runner.start();
  while ((await runner.get(job.id)).status !== 'completed')
    await new Promise((resolve) => setTimeout(resolve, 5));
  await runner.close();
}

/** Table 1: 50,000 records end to end, memory vs SQLite; table 3: sign + verify vs Stripe's SDK. */
export async function runBatchBenchmark(): Promise<Measurement[]> {
  const jobs: Measurement[] = [];
  let peak = 0;
  const sample = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  jobs.push(await measure('memory store', RECORDS, () => runJob(createMemoryStore())));
  const memoryPeak = peak;
  const dir = mkdtempSync(join(tmpdir(), 'bench-batch-'));
  jobs.push(
    await measure('SQLite store (WAL, file)', RECORDS, async () =>
      runJob(await createSqliteStore({ path: join(dir, 'jobs.db') })),
    ),
  );
  clearInterval(sample);
  for (const row of jobs)
    row.note = `peak RSS so far ${Math.round((row.name.startsWith('memory') ? memoryPeak : peak) / 1e6)} MB`;
  printTable(
    `Batch: ${RECORDS.toLocaleString('en')} records, trivial async processor (records/s)`,
    jobs,
    'memory store',
  );
  const gap = (jobs[1]?.seconds ?? 0) - (jobs[0]?.seconds ?? 0);
  console.log(
    `\nSQLite costs ${gap.toFixed(2)} s more than memory for ${RECORDS.toLocaleString('en')} records (goal: within 2 s).`,
  );

  const body = JSON.stringify({
    id: 'evt_x',
    object: 'event',
    type: 'batch.completed',
    created: 1,
    data: { object: { id: 'batch_x', counts: { deliverable: 10 } } },
  });
  const secret = 'whsec_bench';
  const stripe = new Stripe('sk_test_unused');
  const rounds = 100_000;
  const signing: Measurement[] = [];
  signing.push(
    await measure('ours signPayload + verifyPayload', rounds, () => {
      for (let round = 0; round < rounds; round++) {
        const now = 1_763_900_000 + round;
        verifyPayload(body, signPayload(body, secret, { timestamp: now }), secret, { now });
      }
    }),
  );
  signing.push(
    await measure('stripe generateTestHeaderString + constructEvent', rounds, () => {
      for (let round = 0; round < rounds; round++) {
        const timestamp = 1_763_900_000 + round;
        const header = stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp });
        stripe.webhooks.constructEvent(body, header, secret, 300, undefined, timestamp * 1000);
      }
    }),
  );
  printTable(
    `Webhook signatures: ${rounds.toLocaleString('en')} sign + verify round trips`,
    signing,
    'stripe generateTestHeaderString + constructEvent',
  );
  return [...jobs, ...signing];
}
