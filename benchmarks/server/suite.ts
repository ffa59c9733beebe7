// The `server` suite of `pnpm bench`: table 1 (throughput, ours vs a bare Fastify route) and
// table 2 (the 100,000-request mix). `pnpm bench server` runs it alone.
import { type MixReport, printMix, runMix } from './mix.js';
import { printThroughput, runThroughput, type ThroughputRow } from './throughput.js';

export async function runServerBenchmark(): Promise<{ throughput: ThroughputRow[]; mix: MixReport }> {
  const throughput = await runThroughput();
  printThroughput(throughput);
  const mix = await runMix();
  printMix(mix);
  return { throughput, mix };
}
