import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { signPayload, verifyPayload } from '@svc/webhooks';
import Stripe from 'stripe';
import { type Measurement, measure, printTable } from '../lib/measure.js';
import { type JobChildReport, RECORDS } from './job-child.js';

/** Runs one job in a fresh child process (see job-child.ts) and returns its report. */
async function runJobInChild(kind: 'memory' | 'sqlite'): Promise<JobChildReport> {
  const dir = mkdtempSync(`${tmpdir()}/bench-batch-`);
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      '--conditions=source',
      '--import',
      'tsx',
      fileURLToPath(new URL('./job-child.ts', import.meta.url)),
      '--batch-job-child',
      kind,
      dir,
    ],
    { maxBuffer: 1 << 20 },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1) as string) as JobChildReport;
}

/** Table 1: 50,000 records end to end, memory vs SQLite; table 3: sign + verify vs Stripe's SDK. */
export async function runBatchBenchmark(): Promise<Measurement[]> {
  const jobs: Measurement[] = [];
  for (const [name, kind] of [
    ['memory store', 'memory'],
    ['SQLite store (WAL, file)', 'sqlite'],
  ] as const) {
    const report = await runJobInChild(kind);
    jobs.push({
      name,
      operations: RECORDS,
      seconds: report.seconds,
      rssMb: report.peakRssMb,
      note: `own process: peak RSS ${report.peakRssMb.toFixed(0)} MB (${report.idleRssMb.toFixed(0)} MB before the job)`,
    });
  }
  printTable(
    `Batch: ${RECORDS.toLocaleString('en')} records, trivial async processor (records/s)`,
    jobs,
    'memory store',
  );
  const gap = (jobs[1]?.seconds ?? 0) - (jobs[0]?.seconds ?? 0);
  const peak = Math.max(...jobs.map((row) => row.rssMb));
  console.log(
    `\nSQLite costs ${gap.toFixed(2)} s more than memory for ${RECORDS.toLocaleString('en')} records (goal: within 2 s); ` +
      `peak RSS of a job process ${peak.toFixed(0)} MB (goal: under 200 MB).`,
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
