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
    // Answers repeat the same city coordinates over and over; remember the last few thousand.
    const zones = new Map<number, string | null>();
    tzLookup = (latitude, longitude) => {
      // A numeric key on a 0.001° grid (about 100 m): formatting two doubles as a string key
      // would cost more than the lookup it saves.
      const lat = Math.round((latitude + 90) * 1000);
      const lon = Math.round((longitude + 180) * 1000);
      const key = lat * 400_000 + lon;
      let zone = zones.get(key);
      if (zone === undefined) {
        try {
          zone = find(lat / 1000 - 90, lon / 1000 - 180);
        } catch {
          zone = null;
        }
        if (zones.size >= 20_000) zones.clear();
        zones.set(key, zone);
      }
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
    if (fields.city) fields.timezone = timezoneFinder(fields.latitude, fields.longitude);
  }
  return fields;
}
