import type { GeoField, GeoPartial } from '../backend.js';

/** Turns one raw mmdb record into our fields. */
export interface MmdbSchema {
  /** Short name used in backend ids, e.g. `city`, `asn`. */
  name: string;
  provides: readonly GeoField[];
  map(record: Record<string, unknown>): GeoPartial;
}

type Json = Record<string, unknown>;

const object = (value: unknown): Json | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
const string = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const number = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;
const flag = (value: unknown): boolean | null => (typeof value === 'boolean' ? value : null);
const englishName = (value: unknown): string | null => string(object(object(value)?.names)?.en);

/** MaxMind GeoIP2/GeoLite2 City, Country and Enterprise; DB-IP's files use the same layout. */
export const maxmindCitySchema: MmdbSchema = {
  name: 'city',
  provides: [
    'continent',
    'country',
    'country_name',
    'region',
    'city',
    'postal_code',
    'latitude',
    'longitude',
    'accuracy_radius',
    'timezone',
    'is_proxy',
    'is_vpn',
    'is_hosting',
    'is_tor',
  ],
  map(record) {
    const location = object(record.location);
    const subdivisions = Array.isArray(record.subdivisions) ? record.subdivisions : [];
    const traits = object(record.traits);
    // The represented/registered country stands in when the physical country is unknown.
    const country = object(record.country) ?? object(record.registered_country);
    return {
      continent: string(object(record.continent)?.code),
      country: string(country?.iso_code),
      country_name: englishName(country),
      region: englishName(subdivisions[0]),
      city: englishName(record.city),
      postal_code: string(object(record.postal)?.code),
      latitude: number(location?.latitude),
      longitude: number(location?.longitude),
      accuracy_radius: number(location?.accuracy_radius),
      timezone: string(location?.time_zone),
      // Enterprise files carry anonymity traits; City files usually do not.
      is_vpn: flag(traits?.is_anonymous_vpn),
      is_proxy: anyTrue(traits?.is_public_proxy, traits?.is_residential_proxy, traits?.is_tor_exit_node),
      is_hosting: flag(traits?.is_hosting_provider),
      is_tor: flag(traits?.is_tor_exit_node),
    };
  },
};

/** GeoLite2-ASN / GeoIP2-ASN and the ASN part of ISP files. */
export const maxmindAsnSchema: MmdbSchema = {
  name: 'asn',
  provides: ['asn', 'org'],
  map: (record) => ({
    asn: number(record.autonomous_system_number),
    org: string(record.autonomous_system_organization),
  }),
};

/** GeoIP2-ISP: ASN plus ISP and organisation names. */
export const maxmindIspSchema: MmdbSchema = {
  name: 'isp',
  provides: ['asn', 'org', 'isp'],
  map: (record) => ({
    asn: number(record.autonomous_system_number),
    // The AS organisation is the stable owner name; fall back to the ISP's organisation field.
    org: string(record.autonomous_system_organization) ?? string(record.organization),
    isp: string(record.isp),
  }),
};

/** GeoIP2-Anonymous-IP: VPN, proxy, Tor and hosting flags (DESIGN §5 "Flags"). */
export const maxmindAnonymousSchema: MmdbSchema = {
  name: 'anonymous-ip',
  provides: ['is_vpn', 'is_proxy', 'is_hosting', 'is_tor'],
  map: (record) => ({
    // Absent flags in a found record mean false: the file lists every flag that applies.
    is_vpn: record.is_anonymous_vpn === true,
    is_proxy:
      record.is_public_proxy === true ||
      record.is_residential_proxy === true ||
      record.is_tor_exit_node === true,
    is_hosting: record.is_hosting_provider === true,
    is_tor: record.is_tor_exit_node === true,
  }),
};

/** ip-location-db's mmdb files (flat fields: country_code, city, state1, latitude, …, or ASN fields). */
export const ipLocationDbSchema: MmdbSchema = {
  name: 'ip-location-db',
  provides: ['country', 'region', 'city', 'postal_code', 'latitude', 'longitude', 'timezone', 'asn', 'org'],
  map: (record) => ({
    country: string(record.country_code),
    region: string(record.state1),
    city: string(record.city),
    postal_code: string(record.postcode),
    latitude: number(record.latitude),
    longitude: number(record.longitude),
    timezone: string(record.timezone),
    asn: number(record.autonomous_system_number),
    org: string(record.autonomous_system_organization),
  }),
};

/** IPinfo's mmdb files (country, city, region, lat/lng as strings or numbers, asn as "AS15169"). */
export const ipinfoSchema: MmdbSchema = {
  name: 'ipinfo',
  provides: [
    'continent',
    'country',
    'country_name',
    'region',
    'city',
    'postal_code',
    'latitude',
    'longitude',
    'timezone',
    'asn',
    'org',
  ],
  map: (record) => {
    const asnText = string(record.asn);
    const asnMatch = asnText ? /^AS(\d+)$/i.exec(asnText) : null;
    const coordinate = (value: unknown) => number(typeof value === 'string' ? Number(value) : value);
    return {
      continent: string(record.continent),
      country: string(record.country),
      country_name: string(record.country_name),
      region: string(record.region),
      city: string(record.city),
      postal_code: string(record.postal_code),
      latitude: coordinate(record.lat ?? record.latitude),
      longitude: coordinate(record.lng ?? record.longitude),
      timezone: string(record.timezone),
      asn: asnMatch ? Number(asnMatch[1]) : null,
      org: string(record.as_name) ?? string(record.org),
    };
  },
};

/** Picks the schema from the file's metadata `database_type`; undefined when unknown. */
export function schemaForDatabaseType(databaseType: string): MmdbSchema | undefined {
  const type = databaseType.toLowerCase();
  if (type.includes('anonymous-ip')) return maxmindAnonymousSchema;
  if (type.includes('-isp')) return maxmindIspSchema;
  if (type.endsWith('-asn') || type.includes('asn')) {
    return type.startsWith('ipinfo')
      ? ipinfoSchema
      : type.includes('ip-location-db')
        ? ipLocationDbSchema
        : maxmindAsnSchema;
  }
  if (type.startsWith('ipinfo')) return ipinfoSchema;
  if (type.includes('ip-location-db') || type.includes('iplocationdb')) return ipLocationDbSchema;
  if (/(city|country|enterprise)/.test(type)) return maxmindCitySchema;
  return undefined;
}

function anyTrue(...values: unknown[]): boolean | null {
  if (values.every((value) => value === undefined)) return null;
  return values.some((value) => value === true);
}
