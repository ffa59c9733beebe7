import type { FieldLayout, GeoField } from './backend.js';
import { ASN_NETWORK_TYPES_SOURCE } from './network-lists/asn-types.js';

export type Sources = Partial<Record<GeoField, string>>;

/** Bits of the fields the fill derived, in the order `sources` lists them. */
export const DERIVED_COUNTRY_NAME = 1;
export const DERIVED_CONTINENT = 2;
export const DERIVED_TIMEZONE = 4;
/** network_type and is_hosting set from the ASN table (`asn-network-types`). */
export const DERIVED_NETWORK_TYPE = 8;
export const DERIVED_HOSTING = 16;

/**
 * The `sources` object of a lookup is decided by which backends answered with which layout (a
 * field goes to the first backend in order whose answer has it; a tree lookup's layout lists
 * `network`, as every such answer has one) and by what the fill derived. For shared answers that is a handful of
 * combinations, so each combination's frozen `sources` is built once and shared by every result
 * with it, instead of building and freezing a new object per lookup.
 */
export class SourcesMemo {
  private root: unknown[] = [];
  private entries = 0;

  /**
   * @param maxEntries Combinations are few (layouts per backend × derived fields); the bound only
   *   guards memory: past it the memo starts over.
   */
  constructor(
    private readonly backendIds: readonly string[],
    private readonly maxEntries = 10_000,
  ) {}

  /** `layouts[i]` is the layout of backend i's answer, null when it had none. */
  get(layouts: readonly (FieldLayout | null)[], derived: number): Readonly<Sources> {
    let node = this.root;
    for (const layout of layouts) {
      const id = layout === null ? 0 : layout.id;
      if (id < 0) return this.build(layouts, derived);
      let next = node[id] as unknown[] | undefined;
      if (next === undefined) {
        next = [];
        node[id] = next;
      }
      node = next;
    }
    let sources = node[derived] as Readonly<Sources> | undefined;
    if (sources === undefined) {
      if (this.entries >= this.maxEntries) {
        this.root = [];
        this.entries = 0;
        return this.get(layouts, derived);
      }
      sources = this.build(layouts, derived);
      node[derived] = sources;
      this.entries++;
    }
    return sources;
  }

  /** The merge's first-non-null rule, on layouts instead of values. */
  private build(layouts: readonly (FieldLayout | null)[], derived: number): Readonly<Sources> {
    const sources: Sources = {};
    layouts.forEach((layout, index) => {
      if (layout === null) return;
      const id = this.backendIds[index] as string;
      // As takeFields: the radius only from the answer whose coordinates win.
      const coordinatesHere = sources.latitude === undefined && layout.fields.includes('latitude');
      for (const field of layout.fields) {
        if (field === 'accuracy_radius_km' && !coordinatesHere) continue;
        sources[field] ??= layout.sources?.[field] ?? id;
      }
    });
    if (derived & DERIVED_COUNTRY_NAME) sources.country_name = 'derived';
    if (derived & DERIVED_CONTINENT) sources.continent = 'derived';
    if (derived & DERIVED_TIMEZONE) sources.timezone = 'derived';
    if (derived & DERIVED_NETWORK_TYPE) sources.network_type = ASN_NETWORK_TYPES_SOURCE;
    if (derived & DERIVED_HOSTING) sources.is_hosting = ASN_NETWORK_TYPES_SOURCE;
    return Object.freeze(sources);
  }
}
