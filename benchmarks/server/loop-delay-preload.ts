// Loaded into `svc serve` by startServe({ loopDelay: true }) (node --import): records the event
// loop's delay (monitorEventLoopDelay, 1 ms resolution), and on SIGUSR2 writes what it recorded
// since the last SIGUSR2 to stderr as one line, `svc-bench-loop-delay {"p50":…,"p99":…,"max":…,
// "cpuMs":…,"runQueueMs":…}` (ms), then starts afresh. svc serve uses SIGHUP, SIGTERM and SIGINT,
// not SIGUSR2. cpuMs and runQueueMs are the main thread's time on a CPU and waiting on a run queue
// for one (Linux's /proc/thread-self/schedstat; absent elsewhere): on a shared machine a delay
// with little CPU and much run-queue wait is the scheduler's, not a long task of the server's.
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

export const LOOP_DELAY_LINE = 'svc-bench-loop-delay ';

/** The main thread's [on CPU, waiting on a run queue] in ns, or null off Linux. */
function schedstat(): [number, number] | null {
  try {
    const [onCpu, waiting] = readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ').map(Number);
    return [onCpu as number, waiting as number];
  } catch {
    return null;
  }
}

const histogram = monitorEventLoopDelay({ resolution: 1 });
histogram.enable();
let sched = schedstat();
process.on('SIGUSR2', () => {
  const ms = (nanoseconds: number) => Math.round(nanoseconds / 1e4) / 100;
  const now = schedstat();
  const figures = {
    p50: ms(histogram.percentile(50)),
    p99: ms(histogram.percentile(99)),
    max: ms(histogram.max),
    ...(now &&
      sched && { cpuMs: Math.round(ms(now[0] - sched[0])), runQueueMs: Math.round(ms(now[1] - sched[1])) }),
  };
  histogram.reset();
  sched = now;
  process.stderr.write(`${LOOP_DELAY_LINE}${JSON.stringify(figures)}\n`);
});
