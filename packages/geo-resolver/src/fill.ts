import { countries } from 'countries-list';
import type { GeoPartial } from './backend.js';

const displayNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });

// Both are asked once per lookup; ICU calls are slow, and there are fewer than 300 codes.
const names = new Map<string, string | null>();
const continents = new Map<string, string | null>();

/** English country name of an ISO 3166-1 alpha-2 code (offline, from ICU data in Node). */
export function countryName(code: string): string | null {
  let name = names.get(code);
  if (name === undefined) {
    try {
      name = displayNames.of(code.toUpperCase()) ?? null;
    } catch {
      name = null;
    }
    names.set(code, name);
  }
  return name;
}

/** Continent code (AF, AN, AS, EU, NA, OC, SA) of a country, from the countries-list data. */
export function continentOf(code: string): string | null {
  let continent = continents.get(code);
  if (continent === undefined) {
    continent = (countries as Record<string, { continent?: string }>)[code.toUpperCase()]?.continent ?? null;
    continents.set(code, continent);
  }
  return continent;
}

/** Maps coordinates to an IANA zone; loaded lazily because its data is large. */
export type TimezoneFinder = (latitude: number, longitude: number) => string | null;

let tzLookup: TimezoneFinder | undefined;

/** The default coordinate → zone function (@photostructure/tz-lookup, CC0), loaded on first use. */
export async function loadDefaultTimezoneFinder(): Promise<TimezoneFinder> {
  if (!tzLookup) {
    const module = (await import('@photostructure/tz-lookup')) as {
      default: (lat: number, lon: number) => string;
    };
    const find = module.default;
    // Answers repeat the same city coordinates over and over; remember recent ones on the 0.001°
    // grid (about 100 m) the finder is asked on. A direct-mapped table: a slot per hash of the two
    // grid numbers, a colliding pair replaces the old one. A Map would need a key beyond 31 bits,
    // boxed on every call, which cost more than the zone lookup it saved.
    const slots = 1 << 15;
    const latitudes = new Int32Array(slots);
    const longitudes = new Int32Array(slots);
    // undefined marks an empty slot.
    const zones: (string | null | undefined)[] = new Array(slots).fill(undefined);
    tzLookup = (latitude, longitude) => {
      const lat = Math.round((latitude + 90) * 1000);
      const lon = Math.round((longitude + 180) * 1000);
      const slot = (Math.imul(lat, 0x9e3779b1) ^ Math.imul(lon, 0x85ebca77)) >>> 17;
      let zone = zones[slot];
      if (zone !== undefined && latitudes[slot] === lat && longitudes[slot] === lon) return zone;
      try {
        zone = find(lat / 1000 - 90, lon / 1000 - 180);
      } catch {
        zone = null;
      }
      latitudes[slot] = lat;
      longitudes[slot] = lon;
      zones[slot] = zone;
      return zone;
    };
  }
  return tzLookup;
}

/** Fills what the data left out but can be derived offline: country name, continent, timezone. */
export function fillDerivedFields(
  fields: GeoPartial,
  timezoneFinder: TimezoneFinder | undefined,
): GeoPartial {
  if (fields.country) {
    fields.country_name ??= countryName(fields.country);
    fields.continent ??= continentOf(fields.country);
  }
  if (!fields.timezone && timezoneFinder && fields.latitude != null && fields.longitude != null) {
    // Only city-level coordinates say something about the zone; a country centroid does not.
    if (fields.city) fields.timezone = timezoneFinder(fields.latitude, fields.longitude) ?? null;
  }
  return fields;
}
