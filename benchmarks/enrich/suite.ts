// The enrich suite (`pnpm bench enrich`): lookups against the floor, then extraction against metascraper.
import type { Measurement } from '../lib/measure.js';
import { runEnrichExtractBenchmark } from './extract.js';
import { runEnrichLookupBenchmark } from './lookups.js';

/**
 * Runs both enrich benchmarks and prints their tables; the lookups first, so their peak RSS is not
 * the extraction's 1,000 pages and metascraper still held by the heap.
 */
export async function runEnrichBenchmark(): Promise<Measurement[]> {
  const lookups = await runEnrichLookupBenchmark();
  return [...(await runEnrichExtractBenchmark()), ...lookups];
}
