import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** MaxMind's test databases, kept in the repository's `fixtures/maxmind-db` (MIT or Apache-2.0). */
export const MAXMIND_FIXTURES = fileURLToPath(new URL('../../../../fixtures/maxmind-db/', import.meta.url));

/** Path of one official test database. */
export const testDatabase = (name: string) => `${MAXMIND_FIXTURES}test-data/${name}`;

/** Path of one deliberately corrupt database. */
export const badDatabase = (name: string) => `${MAXMIND_FIXTURES}bad-data/${name}`;

/** The records a test database was built from, as `[cidr, record]` pairs. */
export function sourceRecords(name: string): Array<[string, Record<string, unknown>]> {
  const entries = JSON.parse(readFileSync(`${MAXMIND_FIXTURES}source-data/${name}`, 'utf8')) as Array<
    Record<string, Record<string, unknown>>
  >;
  return entries.flatMap((entry) => Object.entries(entry));
}

/** The parts of a GeoIP2-City source record the tests read. */
export interface CitySourceRecord {
  continent: { code: string };
  country: { iso_code: string; names: { en: string } };
  city: { names: { en: string } };
  subdivisions: [{ names: { en: string } }];
  location: { latitude: number; longitude: number; time_zone: string; accuracy_radius: number };
}
