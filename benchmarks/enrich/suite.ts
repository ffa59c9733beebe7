// The enrich suite (`pnpm bench enrich`): extraction against metascraper, then lookups against the floor.
import type { Measurement } from '../lib/measure.js';
import { runEnrichExtractBenchmark } from './extract.js';
import { runEnrichLookupBenchmark } from './lookups.js';

/** Runs both enrich benchmarks and prints their tables. */
export async function runEnrichBenchmark(): Promise<Measurement[]> {
  return [...(await runEnrichExtractBenchmark()), ...(await runEnrichLookupBenchmark())];
}
