import type { EnrichmentAdapter } from '../../adapter.js';
import type { DatasetIndex } from './dataset-index.js';

/** Options of the dataset adapters. */
export interface DatasetAdapterOptions {
  /**
   * Confidence of a match by email or profile URL (the user's own records, perhaps stale).
   * @default 0.95
   */
  exactConfidence?: number;
  /** Confidence of a match by name at a company domain (a namesake is possible). @default 0.85 */
  nameConfidence?: number;
}

/**
 * The dataset adapters (no key): the user's own people and companies, imported into a local
 * SQLite index (`openDatasetIndex`, `importFile`). One adapter per kind, ids `dataset` and
 * `dataset_company` (an enricher refuses two adapters sharing an id); a lookup is a local indexed read, so the cache keeps little and concurrency is high.
 */
export function createDatasetAdapters(
  index: DatasetIndex,
  options: DatasetAdapterOptions = {},
): { person: EnrichmentAdapter<'person'>; company: EnrichmentAdapter<'company'> } {
  const exact = options.exactConfidence ?? 0.95;
  const byName = options.nameConfidence ?? 0.85;
  for (const [name, value] of [
    ['exactConfidence', exact],
    ['nameConfidence', byName],
  ] as const) {
    if (!(value > 0 && value <= 1)) throw new TypeError(`${name} must be in (0, 1], got ${String(value)}`);
  }
  // A re-import should show soon; reads are cheap, so cache briefly.
  const ttl = { hitSeconds: 3600, missSeconds: 300 };
  return {
    person: {
      id: 'dataset',
      kind: 'person',
      accepts: ['email', 'domain_name', 'profile_url'],
      provides: [
        'full_name',
        'first_name',
        'last_name',
        'title',
        'email',
        'profile_url',
        'location',
        'company_name',
        'company_domain',
        'company_employee_count',
        'company_founded',
        'company_technologies',
      ],
      cost: 0,
      billsMisses: false,
      ttl,
      concurrency: 64,
      async lookup(query, context) {
        if (context.signal.aborted) return aborted();
        try {
          const people = index.findPeople(query);
          if (people.length === 0) return { type: 'miss', cost: 0 };
          const confidence = query.by === 'domain_name' ? byName : exact;
          return { type: 'hit', cost: 0, candidates: people.map((fields) => ({ fields, confidence })) };
        } catch (error) {
          return failed(error);
        }
      },
    },
    company: {
      id: 'dataset_company',
      kind: 'company',
      accepts: ['domain'],
      provides: [
        'name',
        'domain',
        'description',
        'employee_count',
        'founded',
        'industry',
        'location',
        'technologies',
        'social',
        'logo',
      ],
      cost: 0,
      billsMisses: false,
      ttl,
      concurrency: 64,
      async lookup(query, context) {
        if (context.signal.aborted) return aborted();
        try {
          const fields = index.findCompany(query.domain);
          if (!fields) return { type: 'miss', cost: 0 };
          return { type: 'hit', cost: 0, candidates: [{ fields, confidence: exact }] };
        } catch (error) {
          return failed(error);
        }
      },
    },
  };
}

function aborted() {
  return { type: 'error', error: { kind: 'timeout', message: 'the lookup was aborted' }, cost: 0 } as const;
}

// A closed or corrupt index is the adapter's failure, reported, not thrown.
function failed(error: unknown) {
  return {
    type: 'error',
    error: { kind: 'upstream', message: `dataset index: ${(error as Error).message}` },
    cost: 0,
  } as const;
}
