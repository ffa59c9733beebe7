// Loaded into `svc serve` by startServe({ loopDelay: true }) (node --import): records the event
// loop's delay (monitorEventLoopDelay, 1 ms resolution), and on SIGUSR2 writes what it recorded
// since the last SIGUSR2 to stderr as one line, `svc-bench-loop-delay {"p50":…,"p99":…,"max":…,
// "cpuMs":…,"runQueueMs":…}` (ms), then starts afresh. svc serve uses SIGHUP, SIGTERM and SIGINT,
// not SIGUSR2. cpuMs and runQueueMs are the main thread's time on a CPU and waiting on a run queue
// for one (Linux's /proc/thread-self/schedstat; absent elsewhere): on a shared machine a delay
// with little CPU and much run-queue wait is the scheduler's, not a long task of the server's.
// The line also holds the garbage collections of the main thread since the last one: `gcMajor`
// and `gcMinor` (mark-compacts and scavenges), `gcMaxMs` (the longest pause) and `gcMs` (all
// pauses), from perf_hooks' `gc` entries.
// Plain JavaScript: it loads into the built `svc serve` with no TypeScript loader in the process.
import { readFileSync } from 'node:fs';
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

export const LOOP_DELAY_LINE = 'svc-bench-loop-delay ';

/** @returns {[number, number] | null} The main thread's [on CPU, waiting on a run queue] in ns, or null off Linux. */
function schedstat() {
  try {
    const [onCpu, waiting] = readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ').map(Number);
    return [onCpu, waiting];
  } catch {
    return null;
  }
}

const histogram = monitorEventLoopDelay({ resolution: 1 });
histogram.enable();
let sched = schedstat();
const freshGc = () => ({ gcMajor: 0, gcMinor: 0, gcMaxMs: 0, gcMs: 0 });
let gc = freshGc();
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = /** @type {{ kind?: number }} */ (entry.detail)?.kind;
    if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) gc.gcMajor++;
    else if (kind === constants.NODE_PERFORMANCE_GC_MINOR) gc.gcMinor++;
    gc.gcMaxMs = Math.max(gc.gcMaxMs, entry.duration);
    gc.gcMs += entry.duration;
  }
}).observe({ entryTypes: ['gc'] });
process.on('SIGUSR2', () => {
  const ms = (/** @type {number} */ nanoseconds) => Math.round(nanoseconds / 1e4) / 100;
  const now = schedstat();
  const figures = {
    p50: ms(histogram.percentile(50)),
    p99: ms(histogram.percentile(99)),
    max: ms(histogram.max),
    ...(now &&
      sched && { cpuMs: Math.round(ms(now[0] - sched[0])), runQueueMs: Math.round(ms(now[1] - sched[1])) }),
    gcMajor: gc.gcMajor,
    gcMinor: gc.gcMinor,
    gcMaxMs: Math.round(gc.gcMaxMs * 10) / 10,
    gcMs: Math.round(gc.gcMs),
  };
  histogram.reset();
  sched = now;
  gc = freshGc();
  process.stderr.write(`${LOOP_DELAY_LINE}${JSON.stringify(figures)}\n`);
});
