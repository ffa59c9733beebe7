import type { FieldLayout, GeoField, GeoPartial, SharedAnswer } from '../backend.js';

// Layouts by the set of their fields (a bit per field name); a set may come in several orders.
// Schemas produce a handful of distinct layouts; the bound only guards against a schema that
// makes up keys (later layouts get id -1: correct, just not memoized).
const layoutsBySet = new Map<number, FieldLayout[]>();
const fieldBits = new Map<string, number>();
let layoutCount = 0;
const MAX_LAYOUTS = 4096;

/**
 * Freezes mapped fields to share them between lookups, with their layout. A `network` the schema
 * may have produced is dropped: the network reported is always the one the address matched.
 */
export function shareAnswer(mapped: GeoPartial): SharedAnswer {
  let fields = mapped;
  if ('network' in mapped) {
    const { network: _ignored, ...rest } = mapped;
    fields = rest;
  }
  const present: GeoField[] = [];
  let set = 0;
  for (const key in fields) {
    const value = fields[key as GeoField];
    if (value === null || value === undefined) continue;
    present.push(key as GeoField);
    set |= bitOf(key);
  }
  return Object.freeze({ fields: Object.freeze(fields), layout: internLayout(set, present) });
}

function bitOf(key: string): number {
  let bit = fieldBits.get(key);
  if (bit === undefined) {
    // Fields beyond 31 (keys no schema of ours makes) share the top bit; order comparison still tells layouts apart.
    bit = 1 << Math.min(fieldBits.size, 30);
    fieldBits.set(key, bit);
  }
  return bit;
}

function internLayout(set: number, present: GeoField[]): FieldLayout {
  const candidates = layoutsBySet.get(set) ?? [];
  for (const layout of candidates) {
    if (
      layout.fields.length === present.length &&
      layout.fields.every((field, index) => field === present[index])
    )
      return layout;
  }
  const shared = layoutCount < MAX_LAYOUTS;
  const layout: FieldLayout = Object.freeze({
    fields: Object.freeze(present),
    id: shared ? ++layoutCount : -1,
  });
  if (shared) {
    candidates.push(layout);
    layoutsBySet.set(set, candidates);
  }
  return layout;
}
