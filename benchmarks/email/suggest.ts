// `pnpm bench email-suggest`: the typo suggester's cost on domains it has never seen (each one a
// cache miss, the worst case), moved here from a unit test: speed is measured, not asserted.
import { suggestDomain } from '@svc/email-verifier';
import { type Measurement, measure, printTable } from '../lib/measure.js';

const DOMAINS = 20_000;

export async function runEmailSuggestBenchmark(): Promise<Measurement[]> {
  const domains = Array.from({ length: DOMAINS }, (_, i) => `unrelated-${i}.example`);
  const row = await measure('suggestDomain, uncached unknown domains', DOMAINS, () => {
    for (const domain of domains) suggestDomain(domain);
  });
  row.note = `${((row.seconds * 1e6) / DOMAINS).toFixed(2)} µs each`;
  printTable('Typo suggestion on unknown domains', [row], row.name);
  return [row];
}
