// Loaded into `svc serve` by startServe({ loopDelay: true }) (node --import): records the event
// loop's delay (monitorEventLoopDelay, 1 ms resolution), and on SIGUSR2 writes what it recorded
// since the last SIGUSR2 to stderr as one line, `svc-bench-loop-delay {"p50":…,"p99":…,"max":…}`
// (ms), then starts afresh. svc serve uses SIGHUP, SIGTERM and SIGINT, not SIGUSR2.
import { monitorEventLoopDelay } from 'node:perf_hooks';

export const LOOP_DELAY_LINE = 'svc-bench-loop-delay ';

const histogram = monitorEventLoopDelay({ resolution: 1 });
histogram.enable();
process.on('SIGUSR2', () => {
  const ms = (nanoseconds: number) => Math.round(nanoseconds / 1e4) / 100;
  const figures = {
    p50: ms(histogram.percentile(50)),
    p99: ms(histogram.percentile(99)),
    max: ms(histogram.max),
  };
  histogram.reset();
  process.stderr.write(`${LOOP_DELAY_LINE}${JSON.stringify(figures)}\n`);
});
