import { localPartPattern, type PatternCount } from '../pattern.js';
import { type AddressSummary, addressOutcome } from '../summary.js';

/** Addresses by pattern and outcome, from folded summaries. */
export function countPatterns(summaries: Iterable<AddressSummary>): PatternCount[] {
  const counts = new Map<string, PatternCount>();
  for (const summary of summaries) {
    const outcome = addressOutcome(summary);
    if (outcome === null) continue;
    const pattern = localPartPattern(summary.address);
    const count = counts.get(pattern) ?? { pattern, delivered: 0, bounced: 0 };
    count[outcome] += 1;
    counts.set(pattern, count);
  }
  return [...counts.values()].sort((a, b) => a.pattern.localeCompare(b.pattern));
}
