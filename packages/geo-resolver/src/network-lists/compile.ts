import { createMmdbWriter, type MmdbValue } from '@svc/mmdb-writer';
import type { GeoField } from '../backend.js';
import { numericRangeToCidrs } from '../data/ranges.js';
import type { NetworkListDataset } from '../datasets.js';
import { NETWORK_LIST_FLAGS } from './flags.js';
import type { ListedRange } from './parse.js';

/** The database_type of compiled network lists; read with networkListsSchema. */
export const NETWORK_LISTS_DATABASE_TYPE = 'svc-Network-Lists';

/** One parsed list, with the dataset it belongs to. */
export interface CompiledListInput {
  dataset: NetworkListDataset;
  ranges: readonly ListedRange[];
}

/** A compiled record: the fields of the lists covering a range, and the dataset of each field. */
type Record_ = { [field: string]: MmdbValue } & { sources: { [field: string]: string } };

/**
 * Compiles network lists into one IPv6 mmdb (IPv4 through the usual aliases): the lists are swept
 * into disjoint ranges, each with the record of every list that covers it (a Tor exit in a cloud
 * range is both), so a lookup is one tree walk whatever the number of lists. Each record names the
 * dataset of every field it sets in `sources` (the first list in the given order wins a field).
 * Addresses no list covers get the `unlisted` fields of the complete lists (is_tor: false, …).
 */
export function compileNetworkLists(
  inputs: readonly CompiledListInput[],
  description: string,
  buildEpoch: Date = new Date(),
): Buffer {
  const writer = createMmdbWriter({
    databaseType: NETWORK_LISTS_DATABASE_TYPE,
    ipVersion: 6,
    recordSize: 28,
    description: { en: description },
    buildEpoch,
  });
  // Larger networks first: the writer lets later, more specific networks replace what they cover.
  const unlisted = recordOf(
    inputs.map((_, index) => index),
    inputs,
    'unlisted',
  );
  if (Object.keys(unlisted.sources).length > 0) {
    writer.insert('0.0.0.0/0', unlisted as MmdbValue);
    // Global unicast IPv6 but the 6to4 block, which aliases the IPv4 tree.
    for (const [first, last] of [
      [0x2000n, 0x2001n],
      [0x2003n, 0x3fffn],
    ] as const) {
      const low = first << 112n;
      const high = ((last + 1n) << 112n) - 1n;
      for (const cidr of numericRangeToCidrs(low, high, 6)) writer.insert(cidr, unlisted as MmdbValue);
    }
  }
  const records = new Map<string, Record_>();
  for (const family of [4, 6] as const) {
    for (const [start, end, members] of sweep(inputs, family)) {
      const key = members.join(',');
      let record = records.get(key);
      if (!record) {
        record = recordOf(members, inputs, 'listed', unlisted);
        records.set(key, record);
      }
      for (const cidr of numericRangeToCidrs(start, end, family)) {
        // Ranges inside the IPv4-mapped and 6to4 aliases are IPv4 data the tree already holds.
        if (family === 6 && (start >> 112n === 0x2002n || start >> 32n === 0xffffn)) continue;
        writer.insert(cidr, record as MmdbValue);
      }
    }
  }
  return writer.toBuffer();
}

/** The record for an address covered by the lists `members` (indexes into inputs). */
function recordOf(
  members: readonly number[],
  inputs: readonly CompiledListInput[],
  which: 'listed' | 'unlisted',
  base?: Record_,
): Record_ {
  const record = { sources: {} } as Record_;
  for (const index of members) {
    const { dataset } = inputs[index] as CompiledListInput;
    const fields = NETWORK_LIST_FLAGS[dataset.flag][which];
    for (const [field, value] of Object.entries(fields) as Array<[GeoField, unknown]>) {
      if (field in record) continue;
      record[field] = value as MmdbValue;
      record.sources[field] = dataset.id;
    }
  }
  // Listed in some lists but not in the complete ones: those still say "not listed".
  if (base) {
    for (const [field, value] of Object.entries(base) as Array<[string, unknown]>) {
      if (field === 'sources' || field in record) continue;
      record[field] = value as MmdbValue;
      record.sources[field] = base.sources[field] as string;
    }
  }
  return record;
}

/** Disjoint ranges of one family with the (sorted) indexes of the lists covering each. */
function sweep(inputs: readonly CompiledListInput[], family: 4 | 6): Array<[bigint, bigint, number[]]> {
  const events: Array<[bigint, number]> = [];
  inputs.forEach(({ ranges }, index) => {
    for (const range of ranges) {
      if (range.family !== family) continue;
      events.push([range.start, index + 1], [range.end + 1n, -(index + 1)]);
    }
  });
  events.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const active = new Map<number, number>();
  const out: Array<[bigint, bigint, number[]]> = [];
  for (let i = 0; i < events.length; ) {
    const position = (events[i] as [bigint, number])[0];
    while (i < events.length && (events[i] as [bigint, number])[0] === position) {
      const delta = (events[i] as [bigint, number])[1];
      const index = Math.abs(delta) - 1;
      const count = (active.get(index) ?? 0) + Math.sign(delta);
      if (count === 0) active.delete(index);
      else active.set(index, count);
      i++;
    }
    if (active.size === 0 || i >= events.length) continue;
    const next = (events[i] as [bigint, number])[0];
    const members = [...active.keys()].sort((a, b) => a - b);
    const last = out[out.length - 1];
    // Adjacent ranges with the same lists become one.
    if (last && last[1] + 1n === position && last[2].join() === members.join()) last[1] = next - 1n;
    else out.push([position, next - 1n, members]);
  }
  return out;
}
