import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createBatchRunner, createBullMqDispatcher, createPostgresStore } from '@svc/batch-runner';
import { type Measurement, printTable } from '../lib/measure.js';
import { SCALE_RECORDS, scaleRecords, WAIT_PER_RECORD_MS, waitingProcessor } from './job.js';
import { deleteRedisKeys, dropSchema, scratchName } from './scratch.js';
import { WORKER_CONCURRENCY } from './worker-child.js';

/** Worker processes per run; the goal compares the first and the last. */
const WORKER_COUNTS = (process.env.SCALE_WORKERS ?? '1,2,4').split(',').map(Number);
const GOAL_SPEEDUP = 3;

/** Starts one worker-child.ts process and resolves once it printed `ready`. */
function startWorker(args: string[]): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      '--conditions=source',
      '--import',
      'tsx',
      fileURLToPath(new URL('./worker-child.ts', import.meta.url)),
      '--scale-worker',
      ...args,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.setEncoding('utf8').on('data', (text: string) => {
      out += text;
      if (out.includes('ready\n')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`a worker exited (${code}) before it was ready: ${out}`)));
  });
}

async function stopWorker(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/**
 * One run: `workers` processes wait on a fresh queue; the job is submitted once all are ready,
 * and the clock runs from the submit until the store says the job completed.
 */
async function runWithWorkers(databaseUrl: string, redisUrl: string, workers: number): Promise<number> {
  const schema = scratchName();
  const store = await createPostgresStore({ connectionString: databaseUrl, schema });
  const dispatcher = createBullMqDispatcher({ store, connection: redisUrl, queueName: schema });
  // Submits only (never started): the chunks go to the queue for the worker processes.
  const submitter = createBatchRunner({ store, dispatcher, processors: [waitingProcessor] });
  const children: ChildProcess[] = [];
  try {
    children.push(
      ...(await Promise.all(
        Array.from({ length: workers }, () => startWorker([databaseUrl, schema, redisUrl, schema])),
      )),
    );
    const started = performance.now();
    const job = await submitter.submit({ type: 'geo_ip', records: scaleRecords(SCALE_RECORDS) });
    for (;;) {
      const current = await submitter.get(job.id);
      if (current.status === 'completed') break;
      if (current.status !== 'queued' && current.status !== 'running')
        throw new Error(`the job ended ${current.status}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return (performance.now() - started) / 1000;
  } finally {
    await Promise.all(children.map(stopWorker));
    await submitter.close();
    await dispatcher.close();
    await store.close();
    await dropSchema(databaseUrl, schema);
    await deleteRedisKeys(redisUrl, schema);
  }
}

/**
 * Table 2: the job on Postgres + BullMQ with 1, 2 and 4 worker processes, a processor that waits
 * 5 ms per record, one chunk at a time per worker (WORKER_CONCURRENCY).
 */
export async function runWorkerScaling(databaseUrl: string, redisUrl: string): Promise<Measurement[]> {
  const rows: Measurement[] = [];
  for (const workers of WORKER_COUNTS) {
    const seconds = await runWithWorkers(databaseUrl, redisUrl, workers);
    rows.push({
      name: `${workers} worker process${workers === 1 ? '' : 'es'}`,
      operations: SCALE_RECORDS,
      seconds,
      rssMb: process.memoryUsage().rss / 1e6,
      // Wall time per record per chunk stream: 5 ms of waiting plus timer lateness and the
      // claims and commits; a change across rows shows the machine's load changed (DESIGN §9).
      note: `${workers * WORKER_CONCURRENCY} chunk${workers * WORKER_CONCURRENCY === 1 ? '' : 's'} of 250 in flight; ${((seconds * 1000 * workers * WORKER_CONCURRENCY) / SCALE_RECORDS).toFixed(2)} ms per record per stream`,
    });
  }
  const baseline = rows[0]?.name ?? '';
  printTable(
    `Scale 2: ${SCALE_RECORDS.toLocaleString('en')} records on Postgres + BullMQ, ${WAIT_PER_RECORD_MS} ms wait per record, ${WORKER_CONCURRENCY} chunk at a time per worker (records/s; RSS is the benchmark's own process)`,
    rows,
    baseline,
  );
  const first = rows[0];
  const last = rows.at(-1);
  if (first && last) {
    const speedup = first.seconds / last.seconds;
    const floor = (SCALE_RECORDS * WAIT_PER_RECORD_MS) / 1000;
    console.log(
      `\nSpeed-up from ${WORKER_COUNTS[0]} to ${WORKER_COUNTS.at(-1)} workers: ${speedup.toFixed(2)}× ` +
        // The goal is about 1 → 4 workers; other SCALE_WORKERS lists get the ratio alone.
        (WORKER_COUNTS[0] === 1 && WORKER_COUNTS.at(-1) === 4
          ? `(goal: at least ${GOAL_SPEEDUP}×: ${speedup >= GOAL_SPEEDUP ? 'met' : 'NOT met'}). `
          : '. ') +
        `The waits alone take ${floor.toFixed(0)} s of one chunk stream; ${first.name} took ${first.seconds.toFixed(1)} s.`,
    );
  }
  return rows;
}
