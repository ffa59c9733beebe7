import type { GeoBackend, GeoField, GeoPartial, SharedAnswer } from '../backend.js';
import { type FieldSources, shareAnswer } from '../backends/shared-answer.js';

const COUNTRY_LEVEL: readonly GeoField[] = ['continent', 'country', 'country_name'];
const REGION_LEVEL: readonly GeoField[] = [...COUNTRY_LEVEL, 'region', 'region_code'];
const LOCATION_FIELDS: ReadonlySet<GeoField> = new Set<GeoField>([
  ...REGION_LEVEL,
  'city',
  'postal_code',
  'latitude',
  'longitude',
  'accuracy_radius_km',
  'timezone',
]);

/**
 * Puts the geofeed before the databases and keeps their locations from mixing with it: for an
 * address a geofeed covers, a database's location fields are kept only as far as they agree with
 * the feed (same country; same region where the feed names one; same city where the feed names
 * one). A database that places the address in another country keeps none of its location (its
 * coordinates, radius and zone would describe another place); one that agrees on the country but
 * not the region keeps the country level, and so on. Fields that are no location (ASN, organisation,
 * flags) are untouched, and so is every address no feed covers.
 */
export function withGeofeed(geofeed: GeoBackend, backends: readonly GeoBackend[]): GeoBackend[] {
  return [
    geofeed,
    ...backends.map((backend) =>
      backend.provides.some((field) => LOCATION_FIELDS.has(field)) ? overlay(backend, geofeed) : backend,
    ),
  ];
}

/** The fields of `answer` that agree with the feed's `covered` answer. */
export function agreeingFields(answer: Readonly<GeoPartial>, covered: Readonly<GeoPartial>): GeoPartial {
  let keep: ReadonlySet<GeoField> | null;
  if (answer.country !== covered.country) keep = new Set();
  else if (covered.region_code != null && answer.region_code !== covered.region_code)
    keep = new Set(COUNTRY_LEVEL);
  else if (covered.city != null && answer.city?.toLowerCase() !== covered.city.toLowerCase())
    keep = new Set(REGION_LEVEL);
  else keep = null;
  const kept: GeoPartial = {};
  for (const key of Object.keys(answer) as GeoField[]) {
    if (keep !== null && LOCATION_FIELDS.has(key) && !keep.has(key)) continue;
    (kept as Record<string, unknown>)[key] = answer[key];
  }
  return kept;
}

function overlay(inner: GeoBackend, geofeed: GeoBackend): GeoBackend {
  // Shared answers filtered once per (database answer, feed answer) pair.
  const memo = new WeakMap<object, WeakMap<object, SharedAnswer>>();
  const wrapped: GeoBackend = {
    id: inner.id,
    provides: inner.provides,
    lookup(ip, family) {
      const answer = inner.lookup(ip, family);
      if (answer === null) return null;
      const covered = geofeed.lookup(ip, family);
      return covered === null ? answer : agreeingFields(answer, covered);
    },
    ...(inner.reportsNetwork === undefined ? {} : { reportsNetwork: inner.reportsNetwork }),
    get generation() {
      return inner.generation ?? 0;
    },
    ...(inner.reload ? { reload: () => (inner.reload as () => Promise<void>)() } : {}),
    ...(inner.describe ? { describe: () => (inner.describe as NonNullable<GeoBackend['describe']>)() } : {}),
    ...(inner.close ? { close: () => inner.close?.() } : {}),
  };
  const innerLookupAddress = inner.lookupAddress?.bind(inner);
  if (innerLookupAddress !== undefined) {
    wrapped.lookupAddress = (address, match) => {
      const answer = innerLookupAddress(address, match);
      if (answer === null) return null;
      const covered = geofeed.lookup(address.canonical, address.family);
      if (covered === null) return answer;
      let byFeed = memo.get(answer.fields);
      if (byFeed === undefined) {
        byFeed = new WeakMap();
        memo.set(answer.fields, byFeed);
      }
      let filtered = byFeed.get(covered);
      if (filtered === undefined) {
        const fields = agreeingFields(answer.fields, covered);
        const sources = answer.layout.sources;
        filtered = shareAnswer(
          fields,
          sources ? keepSources(sources, fields) : null,
          answer.layout.fields.includes('network'),
        );
        byFeed.set(covered, filtered);
      }
      return filtered;
    };
  }
  return wrapped;
}

function keepSources(sources: FieldSources, fields: GeoPartial): FieldSources {
  return Object.fromEntries(Object.entries(sources).filter(([key]) => key in fields));
}
