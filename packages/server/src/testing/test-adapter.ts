import type { AdapterKind, EnrichmentAdapter, FieldsOf, LookupOutcome } from '@svc/enricher';

/**
 * An in-memory enrichment source for tests that put a real enricher over known data: free, misses
 * not billed, 60 s cache times, four lookups at once. The test gives its id, kind, query forms,
 * fields and `lookup`.
 */
export function testAdapter<K extends AdapterKind>(
  source: Pick<EnrichmentAdapter<K>, 'id' | 'kind' | 'accepts' | 'provides' | 'lookup'>,
): EnrichmentAdapter<K> {
  return { cost: 0, billsMisses: false, ttl: { hitSeconds: 60, missSeconds: 60 }, concurrency: 4, ...source };
}

/** A free hit of one candidate with `fields`, at confidence 0.9. */
export function oneHit<K extends AdapterKind>(fields: Partial<FieldsOf<K>>): LookupOutcome<K> {
  return { type: 'hit', cost: 0, candidates: [{ confidence: 0.9, fields }] };
}
