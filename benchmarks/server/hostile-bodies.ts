// GET /v2/health latency while clients send the bodies of issue 24 item 2 (arrays of hundreds of
// thousands of wrong-typed items, an object with 60,000 unknown keys), three at a time, with a test
// key (never billed): `svc serve` as users start it, a probe asking /v2/health every 10 ms, first
// quiet, then under the bodies, then quiet again. Each body is sent by a process of its own
// (sender-child.ts), so the probe's event loop measures the server, not the clients. Run once, small:
//   cd benchmarks && node --conditions=source --import tsx run.ts hostile-bodies
// HOSTILE_BODIES_MS (5000) and HOSTILE_QUIET_MS (3000) set the phases' lengths; HOSTILE_BODIES_RUNS
// (1) repeats the run, each with a fresh `svc serve`, and ends with the medians over the runs (one
// run's p99 is about its third-worst request). A sender counts a request that got no answer (the
// server stopped reading a refused body and reset it) as `reset`. HOSTILE_BODIES_SMALL=1 runs the
// control instead: the same senders with small invalid bodies (inputs.ts), which tells what the
// hostile bodies cost from what any refused request sent as fast as the senders can costs.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import {
  describe,
  gcText,
  type LoopDelay,
  median,
  percentile,
  probeHealth,
  startServe,
} from '../batch/sandbox-submit.js';
import { hostileBodies, smallInvalidBodies } from './inputs.js';
import { startSender } from './sender-child.js';

const HOSTILE_MS = Number(process.env.HOSTILE_BODIES_MS ?? 5000);
/** Each quiet phase; longer phases give a steadier p99 (at 3 s it is about the third-worst of 250 requests). */
const QUIET_MS = Number(process.env.HOSTILE_QUIET_MS ?? 3000);
/** Priority of the sender processes (see startSender): 19 unless HOSTILE_SENDERS_NICE says otherwise. */
const SENDERS_NICE = Number(process.env.HOSTILE_SENDERS_NICE ?? 19);
const RUNS = Math.max(1, Number(process.env.HOSTILE_BODIES_RUNS ?? 1));
/** HOSTILE_BODIES_SMALL=1: the control, small invalid bodies to the same endpoints (smallInvalidBodies). */
const BODIES = process.env.HOSTILE_BODIES_SMALL === '1' ? smallInvalidBodies : hostileBodies;

/** What one run measured (ms, seconds, bytes). */
interface RunFigures {
  quietP50: number;
  quietP99: number;
  underP50: number;
  underP99: number;
  quietLoopP99: number;
  underLoopP99: number;
  underLoopMax: number;
  underGcMajor: number;
  underGcMaxMs: number;
  cpuMsPerBody: number;
  kibPerBody: number;
  bodiesPerSecond: number;
}

/** Bytes a process has read (sockets and files: `rchar` of /proc/<pid>/io, Linux); NaN elsewhere. */
function bytesReadBy(pid: number): number {
  try {
    return Number(/^rchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? Number.NaN);
  } catch {
    return Number.NaN;
  }
}

/** CPU seconds in user space and in the kernel a process has used, from /proc (Linux); NaN elsewhere. */
function cpuSecondsOf(pid: number): { user: number; system: number } {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    // utime and stime are fields 14 and 15 of stat, 12 and 13 after the command's closing paren; clock ticks of 1/100 s.
    return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
  } catch {
    return { user: Number.NaN, system: Number.NaN };
  }
}

async function runOnce(): Promise<RunFigures> {
  const loadAtStart = loadavg();
  const served = await startServe({ loopDelay: true });
  try {
    for (let i = 0; i < 50; i++) await (await fetch(`${served.url}/v2/health`)).arrayBuffer();
    await served.loopDelay();
    const quiet = await probeHealth(served.url, new Promise((resolve) => setTimeout(resolve, QUIET_MS)));
    const quietLoop = await served.loopDelay();
    const senders = await Promise.all(
      BODIES().map(({ path, body }) =>
        startSender(
          { url: served.url, key: served.testKey, path, body, durationMs: HOSTILE_MS },
          { nice: SENDERS_NICE },
        ),
      ),
    );
    const pid = served.child.pid as number;
    const cpuBefore = cpuSecondsOf(pid);
    const readBefore = bytesReadBy(pid);
    const hostile = Promise.all(senders.map((sender) => sender.run()));
    const busy = await probeHealth(served.url, hostile);
    const cpuAfter = cpuSecondsOf(pid);
    const serverRead = bytesReadBy(pid) - readBefore;
    const serverUser = cpuAfter.user - cpuBefore.user;
    const serverSystem = cpuAfter.system - cpuBefore.system;
    const serverCpu = serverUser + serverSystem;
    const busyLoop = await served.loopDelay();
    const statuses = new Map<string, number>();
    for (const report of await hostile)
      for (const [status, count] of Object.entries(report.statuses))
        statuses.set(status, (statuses.get(status) ?? 0) + count);
    const bodies = [...statuses.values()].reduce((sum, count) => sum + count, 0);
    const after = await probeHealth(served.url, new Promise((resolve) => setTimeout(resolve, QUIET_MS)));
    const afterLoop = await served.loopDelay();
    const loop = (figures: LoopDelay) =>
      `p50 ${figures.p50} ms, p99 ${figures.p99} ms, max ${figures.max} ms; ${gcText(figures)}`;
    const sizes = BODIES()
      .map(({ body }) =>
        body.length < 10_240 ? `${body.length} B` : `${(body.length / 1024).toFixed(0)} KiB`,
      )
      .join(', ');
    console.log(
      `\n## GET /v2/health while three client processes send ${BODIES === hostileBodies ? 'hostile' : 'small invalid'} JSON bodies (${sizes})\n`,
    );
    console.log('| phase | health latency (the probe) | the server’s event-loop delay |');
    console.log('|---|---|---|');
    console.log(`| quiet before (${QUIET_MS / 1000} s) | ${describe(quiet)} | ${loop(quietLoop)} |`);
    console.log(`| under the bodies (${HOSTILE_MS / 1000} s) | ${describe(busy)} | ${loop(busyLoop)} |`);
    console.log(`| quiet after (${QUIET_MS / 1000} s) | ${describe(after)} | ${loop(afterLoop)} |`);
    const side = (p: number) => {
      const [before, under] = [percentile(quiet, p), percentile(busy, p)];
      return `p${p} ${before.toFixed(1)} → ${under.toFixed(1)} ms (${under >= before ? '+' : ''}${(under - before).toFixed(1)})`;
    };
    console.log(
      `\nGET /v2/health, quiet before → under the bodies: ${side(50)}, ${side(99)}; issue 24 asks the p99 within a few ms of quiet`,
    );
    const answered = [...statuses].map(([status, count]) => `${count}× ${status}`).join(', ');
    console.log(
      `\nthe bodies were answered: ${answered} (${(bodies / (HOSTILE_MS / 1000)).toFixed(0)} a second)`,
    );
    console.log(
      `the server read ${(serverRead / 2 ** 20).toFixed(1)} MiB under the bodies, ${(serverRead / bodies / 1024).toFixed(0)} KiB a body (the health requests included)`,
    );
    console.log(
      `the senders ran at nice ${SENDERS_NICE}; the server used ${serverCpu.toFixed(2)} CPU seconds under the bodies (${serverUser.toFixed(2)} user, ${serverSystem.toFixed(2)} kernel), ${((serverCpu * 1000) / bodies).toFixed(2)} ms a body`,
    );
    console.log(
      `${new Date().toISOString()}; load average (1, 5, 15 min) at the start: ${loadAtStart
        .map((load) => load.toFixed(1))
        .join(', ')}; at the end: ${loadavg()
        .map((load) => load.toFixed(1))
        .join(', ')}`,
    );
    return {
      quietP50: percentile(quiet, 50),
      quietP99: percentile(quiet, 99),
      underP50: percentile(busy, 50),
      underP99: percentile(busy, 99),
      quietLoopP99: quietLoop.p99,
      underLoopP99: busyLoop.p99,
      underLoopMax: busyLoop.max,
      underGcMajor: busyLoop.gcMajor,
      underGcMaxMs: busyLoop.gcMaxMs,
      cpuMsPerBody: (serverCpu * 1000) / bodies,
      kibPerBody: serverRead / bodies / 1024,
      bodiesPerSecond: bodies / (HOSTILE_MS / 1000),
    };
  } finally {
    await served.stop();
  }
}

export async function runHostileBodiesBenchmark(): Promise<void> {
  const runs: RunFigures[] = [];
  for (let run = 1; run <= RUNS; run++) {
    if (RUNS > 1) console.log(`\n### Run ${run} of ${RUNS}`);
    runs.push(await runOnce());
  }
  if (RUNS === 1) return;
  const row = (name: string, pick: (run: RunFigures) => number, digits = 1) =>
    console.log(
      `| ${name} | ${median(runs.map(pick)).toFixed(digits)} | ${runs.map((run) => pick(run).toFixed(digits)).join(', ')} |`,
    );
  console.log(`\nMedians over the ${RUNS} runs:\n`);
  console.log('| figure | median | each run |');
  console.log('|---|---:|---|');
  row('health p50 quiet before (ms)', (run) => run.quietP50);
  row('health p50 under the bodies (ms)', (run) => run.underP50);
  row('health p99 quiet before (ms)', (run) => run.quietP99);
  row('health p99 under the bodies (ms)', (run) => run.underP99);
  row('health p99, under − quiet (ms)', (run) => run.underP99 - run.quietP99);
  row('server loop delay p99 quiet (ms)', (run) => run.quietLoopP99);
  row('server loop delay p99 under the bodies (ms)', (run) => run.underLoopP99);
  row('server loop delay max under the bodies (ms)', (run) => run.underLoopMax);
  row('server mark-compacts under the bodies', (run) => run.underGcMajor, 0);
  row('server longest GC pause under the bodies (ms)', (run) => run.underGcMaxMs);
  row('bodies answered a second', (run) => run.bodiesPerSecond, 0);
  row('server CPU a body (ms)', (run) => run.cpuMsPerBody, 2);
  row('read a body (KiB)', (run) => run.kibPerBody, 0);
}
