// The event-loop delay of one process while it inserts and runs a 50,000-record sandbox
// verify_email job on SQLite, as `svc serve` does (the runner's defaults, the sandbox verifier):
// what a request arriving then waits for the loop, without HTTP, other processes or a probe.
// batch-submit measures the same through `svc serve` over HTTP; on a loaded machine that figure
// also holds the scheduler's wait for a busy process, which this one separates out. Run alone:
//   cd benchmarks && node --conditions=source --import tsx run.ts batch-loop-delay
// `SANDBOX_CHUNK_SIZES` (default `100,25`) names the sandbox chunk sizes tried (100 is the runner's).
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import { createBatchRunner, createSqliteStore, createVerifyEmailProcessor } from '@svc/batch-runner';
// The verifier test keys get in svc serve (not among @svc/server's exports).
import { createSandboxVerifier } from '../../packages/server/src/sandbox.js';

const RECORDS = 50_000;
const IDLE_MS = 3000;

const ms = (nanoseconds: number) => (nanoseconds / 1e6).toFixed(1);
const describe = (histogram: IntervalHistogram) =>
  `p50 ${ms(histogram.percentile(50))}, p99 ${ms(histogram.percentile(99))}, max ${ms(histogram.max)} ms`;

async function runOnce(sandboxChunkSize: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-loop-delay-'));
  const store = await createSqliteStore({ path: join(dir, 'batch.db') });
  const sandbox = createSandboxVerifier();
  const runner = createBatchRunner({
    store,
    processors: [createVerifyEmailProcessor(sandbox, { sandbox })],
    sandboxChunkSize,
  });
  const records = Array.from({ length: RECORDS }, (_, index) => `user${index}@example.com`);
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  try {
    histogram.enable();
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const idle = describe(histogram);
    histogram.reset();
    const started = performance.now();
    const job = await runner.submit({ type: 'verify_email', records, sandbox: true, account_id: 'bench' });
    const submitMs = performance.now() - started;
    const submitting = describe(histogram);
    histogram.reset();
    runner.start();
    let status = job.status;
    while (status === 'queued' || status === 'running') {
      await new Promise((resolve) => setTimeout(resolve, 50));
      status = (await runner.get(job.id)).status;
    }
    const runMs = performance.now() - started - submitMs;
    return `| ${sandboxChunkSize} | ${idle} | ${(submitMs / 1000).toFixed(2)} s: ${submitting} | ${(runMs / 1000).toFixed(1)} s (${status}): ${describe(histogram)} | ${loadavg()[0]?.toFixed(1)} |`;
  } finally {
    histogram.disable();
    await runner.close({ timeoutMs: 1000 });
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function runBatchLoopDelayBenchmark(): Promise<void> {
  const sizes = (process.env.SANDBOX_CHUNK_SIZES ?? '100,25').split(',').map(Number);
  console.log(
    `\n## Event-loop delay while a ${RECORDS.toLocaleString('en')}-record sandbox job is inserted and run (SQLite, one process)\n`,
  );
  console.log('| sandbox chunk | idle (3 s) | the insert | the job running | load (1 min) at the end |');
  console.log('|---:|---|---|---|---:|');
  for (const size of sizes) console.log(await runOnce(size));
  console.log(`\n${new Date().toISOString()}`);
}
