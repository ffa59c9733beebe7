import type { AdapterKind, Candidate, EnrichmentAdapter, QueryOf } from '../../adapter.js';
import {
  COMPANY_PROFILE_FIELDS,
  EMPLOYER_FACT_FIELDS,
  EMPLOYER_FIELDS,
  PERSON_IDENTITY_FIELDS,
} from '../fields.js';
import type { DatasetReader } from './watched-index.js';

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
 * `dataset_company` (an enricher refuses two adapters sharing an id); a lookup is a local indexed read, so nothing is cached and concurrency is high. Reads an
 * index (`openDatasetIndex`) or a watched file (`watchDatasetIndex`: both adapters are left out of
 * a call while the file is missing).
 */
export function createDatasetAdapters(
  index: DatasetReader,
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
  // Never cached: a lookup is one indexed read of a local file (as cheap as the cache's own), and
  // what an import or an erase changes shows on the next lookup.
  const local = { cost: 0, billsMisses: false, ttl: { hitSeconds: 0, missSeconds: 0 }, concurrency: 64 };
  // A watched index (watchDatasetIndex) leaves both adapters out of a call while there is no file.
  const available = index.available ? { available: () => index.available?.() ?? true } : {};
  return {
    person: {
      ...local,
      id: 'dataset',
      kind: 'person',
      ...available,
      accepts: ['email', 'domain_name', 'profile_url'],
      provides: [
        ...PERSON_IDENTITY_FIELDS,
        'location',
        ...EMPLOYER_FIELDS,
        ...EMPLOYER_FACT_FIELDS,
        'company_technologies',
      ],
      lookup: indexRead((query) => {
        const confidence = query.by === 'domain_name' ? byName : exact;
        return index.findPeople(query).map((fields) => ({ fields, confidence }));
      }),
    },
    company: {
      ...local,
      id: 'dataset_company',
      kind: 'company',
      ...available,
      accepts: ['domain'],
      provides: [...COMPANY_PROFILE_FIELDS, 'technologies', 'social', 'logo'],
      lookup: indexRead((query) => {
        const fields = index.findCompany(query.domain);
        return fields ? [{ fields, confidence: exact }] : [];
      }),
    },
  };
}

/**
 * A lookup that reads the index: its candidates are a free hit, none a miss; an aborted lookup
 * and a closed or corrupt index are the adapter's errors, reported, not thrown.
 */
function indexRead<K extends AdapterKind>(
  read: (query: QueryOf<K>) => Candidate<K>[],
): EnrichmentAdapter<K>['lookup'] {
  return async (query, context) => {
    if (context.signal.aborted) {
      return { type: 'error', error: { kind: 'timeout', message: 'the lookup was aborted' }, cost: 0 };
    }
    try {
      const candidates = read(query);
      return candidates.length === 0 ? { type: 'miss', cost: 0 } : { type: 'hit', cost: 0, candidates };
    } catch (error) {
      return {
        type: 'error',
        error: { kind: 'upstream', message: `dataset index: ${(error as Error).message}` },
        cost: 0,
      };
    }
  };
}
