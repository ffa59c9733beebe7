/** One measured variant of a benchmark. */
export interface Measurement {
  name: string;
  operations: number;
  seconds: number;
  rssMb: number;
  note?: string;
}

/** Runs `work` once and measures wall time and resident memory afterwards. */
export async function measure(
  name: string,
  operations: number,
  work: () => unknown,
  note?: string,
): Promise<Measurement> {
  const started = performance.now();
  await work();
  const seconds = (performance.now() - started) / 1000;
  return { name, operations, seconds, rssMb: process.memoryUsage().rss / 1e6, note };
}

/** Prints measurements as a table with ops/s and the ratio to the baseline row. */
export function printTable(title: string, rows: Measurement[], baseline: string): void {
  const base = rows.find((row) => row.name === baseline);
  const baseRate = base ? base.operations / base.seconds : Number.NaN;
  console.log(`\n## ${title}\n`);
  console.log(`| variant | ops | seconds | ops/s | ratio vs ${baseline} | RSS MB | note |`);
  console.log('|---|---:|---:|---:|---:|---:|---|');
  for (const row of rows) {
    const rate = row.operations / row.seconds;
    console.log(
      `| ${row.name} | ${row.operations.toLocaleString('en')} | ${row.seconds.toFixed(2)} | ${Math.round(rate).toLocaleString('en')} | ${(rate / baseRate).toFixed(2)}× | ${row.rssMb.toFixed(0)} | ${row.note ?? ''} |`,
    );
  }
}

/** Samples RSS every 10 ms, so the figure is the peak during the run and not what is left after it. */
export function trackPeakRss(): () => number {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 10);
  return () => {
    clearInterval(timer);
    return Math.max(peak, process.memoryUsage().rss) / 1e6;
  };
}

/** A deterministic pseudo-random generator, so every run measures the same inputs. */
export { seededRandom as seeded } from '@svc/testkit';
