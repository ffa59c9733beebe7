import type { Reader } from 'maxmind';
import type { SharedAnswer } from '../backend.js';
import type { MmdbSchema } from './mmdb-schemas.js';
import { shareAnswer } from './shared-answer.js';
import { SlotCache } from './slot-cache.js';

// resolveDataPointer is private in the typings but stable in mmdb-lib 3.
type DataReader = { resolveDataPointer(pointer: number): Record<string, unknown> };

/**
 * The schema-mapped answer of the record a data pointer leads to, kept per pointer: many networks
 * share one record (every network of a city, every prefix of an AS), so decoding and mapping run
 * once per record instead of once per lookup. This caches records, never answers for addresses.
 * The answers are frozen because they are shared: the resolver merges from them without copying.
 */
export function mappedRecords(
  reader: Reader<Record<string, unknown>>,
  schema: MmdbSchema,
  slotBits: number,
): (pointer: number) => SharedAnswer {
  const data = reader as unknown as DataReader;
  const cache = new SlotCache<SharedAnswer>(slotBits);
  return (pointer) => {
    let answer = cache.get(pointer);
    if (answer === undefined) {
      const record = data.resolveDataPointer(pointer);
      answer = shareAnswer(
        schema.map(record),
        schema.sourcesOf?.(record) ?? null,
        schema.reportsNetwork !== false,
      );
      cache.set(pointer, answer);
    }
    return answer;
  };
}
