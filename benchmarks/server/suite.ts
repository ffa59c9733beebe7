// The `server` suite of `pnpm bench`: table 1 (throughput, ours vs a bare Fastify route),
// table 2 (the 100,000-request mix) and, with SERVER_BENCH_INSTRUCTIONS=1, table 3 (instructions
// per request under callgrind). `pnpm bench server` runs it alone.
import { type InstructionRow, printInstructions, runInstructions } from './instructions.js';
import { type MixReport, printMix, runMix } from './mix.js';
import { printThroughput, runThroughput, type ThroughputRow } from './throughput.js';

export async function runServerBenchmark(): Promise<{
  throughput: ThroughputRow[];
  mix: MixReport;
  instructions: InstructionRow[] | null;
}> {
  const result = await runThroughput();
  printThroughput(result);
  const throughput = result.rows;
  const mix = await runMix();
  printMix(mix);
  let instructions: InstructionRow[] | null = null;
  if (process.env.SERVER_BENCH_INSTRUCTIONS === '1') {
    instructions = await runInstructions();
    if (instructions) printInstructions(instructions);
  }
  return { throughput, mix, instructions };
}
