import type { FieldLayout, GeoField, GeoPartial, SharedAnswer } from '../backend.js';
import { RESULT_FIELDS } from '../merge.js';

// Layouts by the set of their fields (a bit per field name); a set may come in several orders.
// Schemas produce a handful of distinct layouts; the bound only guards memory against a backend
// whose answers list their fields in ever new orders (later layouts get id -1: correct, just not
// memoized).
const layoutsBySet = new Map<number, FieldLayout[]>();
const fieldBits = new Map<string, number>();
let layoutCount = 0;
const MAX_LAYOUTS = 4096;

/**
 * Freezes mapped fields to share them between lookups, with their layout. A `network` the schema
 * may have produced is dropped: the network reported is always the one the address matched, so
 * the layout lists `network` last, as a field every answer of a tree lookup has.
 */
export function shareAnswer(
  mapped: GeoPartial,
  fieldSources: FieldSources | null = null,
  withNetwork = true,
): SharedAnswer {
  let fields = mapped;
  if ('network' in mapped) {
    const { network: _ignored, ...rest } = mapped;
    fields = rest;
  }
  const { present, set } = presentFields(fields);
  if (withNetwork) present.push('network');
  return Object.freeze({
    fields: Object.freeze(fields),
    layout: internLayout(withNetwork ? set | bitOf('network') : set, present, fieldSources),
  });
}

/** Per-field sources an answer names itself (a dataset inside a backend), instead of the backend's id. */
export type FieldSources = Readonly<Partial<Record<GeoField, string>>>;

/**
 * The answer of a backend without the fast path (`lookup` only), in the same form, so one merge
 * serves every backend. Its `network`, if it gave one, is a field like the others. The answer is
 * neither copied nor frozen: it is read once, by this lookup.
 */
export function wrapAnswer(answer: GeoPartial): SharedAnswer {
  const { present, set } = presentFields(answer);
  return { fields: answer, layout: internLayout(set, present) };
}

/** The result fields with a value, in key order; keys that are not result fields are left out. */
function presentFields(fields: GeoPartial): { present: GeoField[]; set: number } {
  const present: GeoField[] = [];
  let set = 0;
  for (const key in fields) {
    const value = fields[key as GeoField];
    if (value === null || value === undefined || !RESULT_FIELDS.has(key)) continue;
    present.push(key as GeoField);
    set |= bitOf(key);
  }
  return { present, set };
}

function bitOf(key: string): number {
  let bit = fieldBits.get(key);
  if (bit === undefined) {
    // Only result fields get here (about 20); past 31 they would share the top bit, and comparing
    // the lists still tells layouts apart.
    bit = 1 << Math.min(fieldBits.size, 30);
    fieldBits.set(key, bit);
  }
  return bit;
}

function internLayout(
  set: number,
  present: GeoField[],
  fieldSources: FieldSources | null = null,
): FieldLayout {
  const candidates = layoutsBySet.get(set) ?? [];
  for (const layout of candidates) {
    if (
      layout.fields.length === present.length &&
      layout.fields.every((field, index) => field === present[index]) &&
      sameSources(layout.sources ?? null, fieldSources)
    )
      return layout;
  }
  const shared = layoutCount < MAX_LAYOUTS;
  const layout: FieldLayout = Object.freeze({
    fields: Object.freeze(present),
    id: shared ? ++layoutCount : -1,
    ...(fieldSources ? { sources: Object.freeze({ ...fieldSources }) } : {}),
  });
  if (shared) {
    candidates.push(layout);
    layoutsBySet.set(set, candidates);
  }
  return layout;
}

function sameSources(a: FieldSources | null, b: FieldSources | null): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length && keys.every((key) => a[key as GeoField] === b[key as GeoField])
  );
}
