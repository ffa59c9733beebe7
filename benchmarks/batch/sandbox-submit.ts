// GET /v2/health latency while a test key submits a 50,000-record sandbox job (issue 24 item 5):
// `svc serve` runs as users start it (the built CLI, plain node, SQLite in a fresh data dir), a probe
// asks /v2/health every 10 ms, one request at a time, first on a quiet server, then from the
// submit until the job has completed (insert and processing both). The submit is sent by a
// process of its own (server/sender-child.ts), the probe alone in this one. Each phase also
// shows the server's own event-loop delay and its main thread's time on a CPU and waiting for
// one (server/loop-delay-preload.mjs), which tells a long task from a busy machine. Run alone:
//   cd benchmarks && node --conditions=source --import tsx run.ts batch-submit
// The p99 of one run's ~250-300 probe requests a phase is its third-worst request, which moves by
// 10 ms between runs on a shared machine; for a steadier figure repeat the run and take medians:
//   BATCH_SUBMIT_RUNS (default 1): runs, each with a fresh `svc serve` and data dir; with more
//     than one, a last table gives each phase's median p50 / p99 over the runs and the
//     server's loop delay (median p99, largest max).
//   BATCH_SUBMIT_QUIET_MS (default 3000): the length of each quiet phase.
//   BATCH_SUBMIT_RECORDS (default 50,000): records in the job.
//   SERVE_CPU_PROF=<dir>: the server writes its CPU profile there when it stops.
//   SERVE_FROM_SOURCE=1: runs the CLI from its TypeScript source through tsx instead, as the
//     benchmarks did until 2026-11-28 (tsx's loader and source maps make its heap larger).
//   SERVE_NODE_FLAGS: more node flags for the server (e.g. `--trace-gc`); what V8 writes to
//     stdout with them (every line of stdout but the JSON log's) is copied to stderr.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSender } from '../server/sender-child.js';
import { buildWorkspace } from '../server/server-process.js';

const CLI_SOURCE = fileURLToPath(new URL('../../packages/cli/src/bin.ts', import.meta.url));
/** What `svc` runs once installed (packages/cli's `bin`); built by `tsc --build` first. */
const CLI_BUILT = fileURLToPath(new URL('../../packages/cli/dist/bin.js', import.meta.url));
const RECORDS = Number(process.env.BATCH_SUBMIT_RECORDS ?? 50_000);
const QUIET_MS = Number(process.env.BATCH_SUBMIT_QUIET_MS ?? 3000);
const RUNS = Math.max(1, Number(process.env.BATCH_SUBMIT_RUNS ?? 1));

interface Served {
  url: string;
  testKey: string;
  child: ChildProcess;
  /**
   * With `loopDelay`: the server's event-loop delay since the last call (ms), read in the server
   * itself (server/loop-delay-preload.mjs), apart from the probe's and the scheduler's share.
   */
  loopDelay(): Promise<LoopDelay>;
  stop(): Promise<void>;
}

/** Event-loop delay percentiles, ms. */
export interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
  /** The server's main thread on a CPU, and waiting on a run queue for one (Linux only). */
  cpuMs?: number;
  runQueueMs?: number;
  /** The main thread's garbage collections: mark-compacts, scavenges, the longest pause and all of them (ms). */
  gcMajor: number;
  gcMinor: number;
  gcMaxMs: number;
  gcMs: number;
}

/** A LoopDelay's garbage collections, in words. */
export const gcText = ({ gcMajor, gcMinor, gcMaxMs, gcMs }: LoopDelay) =>
  `GC ${gcMajor} mark-compact + ${gcMinor} scavenge, ${gcMs} ms, longest ${gcMaxMs} ms`;

const LOOP_DELAY_PRELOAD = fileURLToPath(new URL('../server/loop-delay-preload.mjs', import.meta.url));
const LOOP_DELAY_LINE = 'svc-bench-loop-delay ';

export async function startServe(options: { loopDelay?: boolean } = {}): Promise<Served> {
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-batch-submit-'));
  // SERVE_CPU_PROF names a directory: the server writes a `.cpuprofile` there when it stops.
  const profileDir = process.env.SERVE_CPU_PROF;
  const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const fromSource = process.env.SERVE_FROM_SOURCE === '1';
  const nodeFlags = (process.env.SERVE_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  if (!fromSource) buildWorkspace();
  const child = spawn(
    process.execPath,
    [
      ...profile,
      ...nodeFlags,
      ...(fromSource ? ['--conditions=source', '--import', 'tsx'] : []),
      ...(options.loopDelay ? ['--import', LOOP_DELAY_PRELOAD] : []),
      fromSource ? CLI_SOURCE : CLI_BUILT,
      'serve',
    ],
    {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      env: {
        PATH: process.env.PATH ?? '',
        HOME: dataDir,
        SVC_PORT: '0',
        SVC_DATA_DIR: dataDir,
        SVC_LOG_LEVEL: 'warn',
        SVC_PROBING_INTERVAL_SECONDS: '0',
        // The probe asks /v2/health without a key 100 times a second; at the default 10 a second
        // for an address without an account it would mostly measure 429s, not health's answer.
        SVC_LIMITS_UNAUTHENTICATED_PER_SECOND: '1000',
        SVC_LIMITS_UNAUTHENTICATED_BURST: '1000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  // The first start's keys are printed on stderr (never with the log on stdout).
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (text: string) => {
    out += text;
    // V8 writes --trace-gc's lines (and its other traces') to stdout, beside the log.
    if (nodeFlags.length > 0)
      for (const line of text.split('\n'))
        if (line && !line.startsWith('{')) process.stderr.write(`${line}\n`);
  });
  const loopDelays: ((figures: LoopDelay) => void)[] = [];
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = chunk.split('\n');
    for (const line of lines.filter((line) => line.startsWith(LOOP_DELAY_LINE)))
      loopDelays.shift()?.(JSON.parse(line.slice(LOOP_DELAY_LINE.length)) as LoopDelay);
    const text = lines.filter((line) => !line.startsWith(LOOP_DELAY_LINE)).join('\n');
    err += text;
    process.stderr.write(text.replace(/(sk_(live|test)_|whsec_)\S+/g, '$1…'));
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`svc serve exited (${code})\n${out}`)));
    child.stdout?.on('data', () => {
      const match = /svc serve: listening on (\S+) /.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
  });
  // stderr is its own pipe: its lines may arrive after the start line on stdout.
  for (let waited = 0; !/test key[^:]*: +sk_test_\w+/.test(err) && waited < 5_000; waited += 20)
    await new Promise((resolve) => setTimeout(resolve, 20));
  const testKey = /test key[^:]*: +(sk_test_\w+)/.exec(err)?.[1];
  if (!testKey) throw new Error(`no test key in the first start's stderr:\n${err}`);
  return {
    url,
    testKey,
    child,
    loopDelay() {
      if (!options.loopDelay) return Promise.reject(new Error('startServe({ loopDelay: true }) measures it'));
      return new Promise<LoopDelay>((resolve) => {
        loopDelays.push(resolve);
        child.kill('SIGUSR2');
      });
    },
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Asks /v2/health every `everyMs`, one request at a time, until `until` resolves; latencies in ms. */
export async function probeHealth(
  url: string,
  until: Promise<unknown>,
  everyMs = 10,
  /** Filled with each request's start (performance.now()), beside its latency. */
  startedAt: number[] = [],
): Promise<number[]> {
  let done = false;
  void until.finally(() => {
    done = true;
  });
  const latencies: number[] = [];
  while (!done) {
    const started = performance.now();
    const response = await fetch(`${url}/v2/health`);
    await response.arrayBuffer();
    latencies.push(performance.now() - started);
    startedAt.push(started);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return latencies;
}

export const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};
export const describe = (values: number[]) =>
  values.length === 0
    ? 'no request'
    : `${values.length} requests, p50 ${percentile(values, 50).toFixed(1)} ms, p99 ${percentile(values, 99).toFixed(1)} ms, max ${Math.max(...values).toFixed(1)} ms`;

async function waitForJob(url: string, key: string, id: string): Promise<Record<string, unknown>> {
  for (;;) {
    const job = (await (await fetch(`${url}/v2/batch/${id}`, { headers: { 'x-api-key': key } })).json()) as {
      status: string;
    };
    if (job.status !== 'queued' && job.status !== 'running') return job;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** One run's figures: each phase's latencies (ms) and the server's loop delay in it. */
interface RunFigures {
  phases: Array<{ name: string; latencies: number[]; loop: LoopDelay | undefined }>;
}

const loopText = (figures: LoopDelay | undefined) =>
  figures
    ? `p50 ${figures.p50} ms, p99 ${figures.p99} ms, max ${figures.max} ms${
        figures.cpuMs === undefined
          ? ''
          : `; on CPU ${figures.cpuMs} ms, waiting for one ${figures.runQueueMs} ms`
      }; ${gcText(figures)}`
    : 'unknown';

async function runOnce(): Promise<RunFigures> {
  const served = await startServe({ loopDelay: true });
  try {
    // Warm up: the first requests compile the routes.
    for (let i = 0; i < 50; i++) await (await fetch(`${served.url}/v2/health`)).arrayBuffer();
    await served.loopDelay();
    const quiet = await probeHealth(served.url, new Promise((resolve) => setTimeout(resolve, QUIET_MS)));
    const quietLoop = await served.loopDelay();
    const records = Array.from({ length: RECORDS }, (_, index) => `user${index}@example.com`);
    // The submit is sent by a process of its own: building and sending 1.2 MB never delays the probe.
    const sender = await startSender({
      url: served.url,
      key: served.testKey,
      path: '/v2/batch',
      body: JSON.stringify({ type: 'verify_email', records }),
    });
    const started = performance.now();
    let submitMs = 0;
    let submitLoop: LoopDelay | undefined;
    const work = (async () => {
      const report = await sender.run();
      submitMs = report.firstAnsweredAt - (performance.timeOrigin + started);
      submitLoop = await served.loopDelay();
      const job = JSON.parse(report.lastBody) as { id?: string };
      if (report.statuses[202] !== 1 || !job.id)
        throw new Error(`submit: ${JSON.stringify(report.statuses)} ${report.lastBody}`);
      return waitForJob(served.url, served.testKey, job.id);
    })();
    const busyStarts: number[] = [];
    const busy = await probeHealth(served.url, work, 10, busyStarts);
    const job = await work;
    const totalMs = performance.now() - started;
    const runLoop = await served.loopDelay();
    const after = await probeHealth(served.url, new Promise((resolve) => setTimeout(resolve, QUIET_MS)));
    const afterLoop = await served.loopDelay();
    // Requests sent before the 202 (the body parsed, the records inserted) and after (the job runs).
    const submitting = busy.filter((_, index) => (busyStarts[index] as number) - started < submitMs);
    const running = busy.filter((_, index) => (busyStarts[index] as number) - started >= submitMs);
    return {
      phases: [
        { name: `quiet before (${QUIET_MS / 1000} s)`, latencies: quiet, loop: quietLoop },
        {
          name: `until the 202 (${(submitMs / 1000).toFixed(2)} s)`,
          latencies: submitting,
          loop: submitLoop,
        },
        {
          name: `the job running (${((totalMs - submitMs) / 1000).toFixed(1)} s; job ${job.status})`,
          latencies: running,
          loop: runLoop,
        },
        { name: `quiet after (${QUIET_MS / 1000} s)`, latencies: after, loop: afterLoop },
      ],
    };
  } finally {
    await served.stop();
  }
}

/** The median of `values` (the mean of the middle two when their count is even). */
export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};
const loadNow = () =>
  loadavg()
    .map((load) => load.toFixed(1))
    .join(', ');

export async function runBatchSubmitBenchmark(): Promise<void> {
  console.log(
    `\n## GET /v2/health during a ${RECORDS.toLocaleString('en')}-record sandbox submit (svc serve, SQLite)${RUNS > 1 ? `, ${RUNS} runs` : ''}`,
  );
  const runs: RunFigures[] = [];
  for (let run = 1; run <= RUNS; run++) {
    const loadAtStart = loadNow();
    const figures = await runOnce();
    runs.push(figures);
    console.log(
      `\n${RUNS > 1 ? `Run ${run}: ` : ''}${new Date().toISOString()}; load average (1, 5, 15 min) at the start: ${loadAtStart}; at the end: ${loadNow()}\n`,
    );
    console.log('| phase | health latency (the probe) | the server’s event-loop delay |');
    console.log('|---|---|---|');
    for (const phase of figures.phases)
      console.log(`| ${phase.name} | ${describe(phase.latencies)} | ${loopText(phase.loop)} |`);
  }
  if (RUNS === 1) return;
  console.log(`\nMedians over the ${RUNS} runs (ms; the loop delay's max is the largest of the runs):\n`);
  console.log('| phase | health p50 | health p99 (each run) | loop delay p99 | loop delay max |');
  console.log('|---|---:|---|---:|---:|');
  const names = ['quiet before', 'until the 202', 'the job running', 'quiet after'];
  names.forEach((name, index) => {
    const phases = runs.map((run) => run.phases[index] as RunFigures['phases'][number]);
    const p99s = phases.map((phase) => percentile(phase.latencies, 99));
    const loops = phases.flatMap((phase) => (phase.loop ? [phase.loop] : []));
    console.log(
      `| ${name} | ${median(phases.map((phase) => percentile(phase.latencies, 50))).toFixed(1)} | ${median(p99s).toFixed(1)} (${p99s.map((p99) => p99.toFixed(1)).join(', ')}) | ${loops.length ? median(loops.map((loop) => loop.p99)).toFixed(1) : '?'} | ${loops.length ? Math.max(...loops.map((loop) => loop.max)).toFixed(1) : '?'} |`,
    );
  });
}
