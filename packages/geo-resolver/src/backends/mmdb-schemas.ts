import { type GeoField, type GeoPartial, NETWORK_TYPES, type NetworkType } from '../backend.js';
import { COMPILED_ASN_DATABASE_TYPE } from '../data/compile-asn.js';
import { NETWORK_LISTS_DATABASE_TYPE } from '../network-lists/compile.js';
import { storedPrecision } from './stored-precision.js';

/** Turns one raw mmdb record into our fields. */
export interface MmdbSchema {
  /** Short name, used to pick the schema by name (`mmdbSchemaByName`, `svc geo --schema`). */
  name: string;
  provides: readonly GeoField[];
  map(record: Record<string, unknown>): GeoPartial;
  /** Sources a record names for its fields (datasets compiled into one file); else the backend's id. */
  sourcesOf?(record: Record<string, unknown>): Partial<Record<GeoField, string>> | null;
  /** False when the file's networks are artefacts of compiling lists, not worth reporting. @default true */
  reportsNetwork?: boolean;
}

type Json = Record<string, unknown>;

const object = (value: unknown): Json | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
const string = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const number = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;
/** A decoded latitude or longitude, at the precision the file stores it (float or double). */
const coordinate = (value: unknown): number | null => {
  const decoded = number(value);
  return decoded === null ? null : storedPrecision(decoded);
};
/** A radius in km: a positive number, else unknown (null); never a made-up one. */
const radiusKm = (value: unknown): number | null => {
  const radius = number(value);
  return radius !== null && radius > 0 ? radius : null;
};
const flag = (value: unknown): boolean | null => (typeof value === 'boolean' ? value : null);
const englishName = (value: unknown): string | null => string(object(object(value)?.names)?.en);

/**
 * ISO 3166-2 code of a MaxMind subdivision: the file stores the part after the country
 * (`CA`, `ENG`), the code is `US-CA`, `GB-ENG`. Only with the physical country the subdivision
 * belongs to (the registered country is another country's code).
 */
function subdivisionCode(country: Json | undefined, subdivision: unknown): string | null {
  const code = string(object(subdivision)?.iso_code);
  if (code === null) return null;
  if (code.includes('-')) return code;
  const countryCode = string(country?.iso_code);
  return countryCode === null ? null : `${countryCode}-${code}`;
}

/**
 * MaxMind GeoIP2/GeoLite2 City, Country and Enterprise; DB-IP's own mmdb files use the same layout.
 * Enterprise files (and any City file whose `traits` carry them) also give the AS number, the AS
 * organisation and the ISP.
 */
export const maxmindCitySchema: MmdbSchema = {
  name: 'city',
  provides: [
    'continent',
    'country',
    'country_name',
    'region',
    'region_code',
    'city',
    'postal_code',
    'latitude',
    'longitude',
    'accuracy_radius_km',
    'timezone',
    'asn',
    'org',
    'isp',
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
      region_code: subdivisionCode(object(record.country), subdivisions[0]),
      city: englishName(record.city),
      postal_code: string(object(record.postal)?.code),
      latitude: coordinate(location?.latitude),
      longitude: coordinate(location?.longitude),
      // MaxMind: 67 % confidence that the user is within this many km of the coordinates.
      accuracy_radius_km: radiusKm(location?.accuracy_radius),
      timezone: string(location?.time_zone),
      asn: number(traits?.autonomous_system_number),
      // As in ISP files: the AS organisation is the stable owner name, the organisation a fallback.
      org: string(traits?.autonomous_system_organization) ?? string(traits?.organization),
      isp: string(traits?.isp),
      // Enterprise files carry anonymity traits; City files usually do not.
      is_vpn: flag(traits?.is_anonymous_vpn),
      is_proxy: anyTrue(traits?.is_public_proxy, traits?.is_residential_proxy, traits?.is_tor_exit_node),
      is_hosting: flag(traits?.is_hosting_provider),
      is_tor: flag(traits?.is_tor_exit_node),
    };
  },
};

/** GeoLite2-ASN / GeoIP2-ASN / DBIP-ASN-Lite, ip-location-db's and our compiled ASN files. */
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

/** GeoIP2-Anonymous-IP and GeoIP-Anonymous-Plus: VPN, proxy, Tor and hosting flags (DESIGN §5 "Flags"). */
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

/**
 * GeoIP-Residential-Proxy: every network in the file is a residential proxy, so being listed sets
 * `is_proxy` (its records only say who runs it and how sure MaxMind is). The other flags stay
 * unknown: the file says nothing about VPNs, Tor or hosting.
 */
export const maxmindResidentialProxySchema: MmdbSchema = {
  name: 'residential-proxy',
  provides: ['is_proxy'],
  map: () => ({ is_proxy: true }),
};

/**
 * ip-location-db's mmdb files (database_type `city ipv4`, `country ipv6`, `asn ipv4`, …): flat
 * fields country_code, state1 (a name, no code), city, postcode, latitude/longitude (floats),
 * timezone; or the ASN fields.
 */
export const ipLocationDbSchema: MmdbSchema = {
  name: 'ip-location-db',
  provides: ['country', 'region', 'city', 'postal_code', 'latitude', 'longitude', 'timezone', 'asn', 'org'],
  map: (record) => ({
    country: string(record.country_code),
    region: string(record.state1),
    city: string(record.city),
    postal_code: string(record.postcode),
    latitude: coordinate(record.latitude),
    longitude: coordinate(record.longitude),
    timezone: string(record.timezone),
    asn: number(record.autonomous_system_number),
    org: string(record.autonomous_system_organization),
  }),
};

/** An ISO 3166-1 alpha-2 or continent code as IPinfo's files hold them: two letters, nothing else. */
const twoLetterCode = (value: unknown): string | null => {
  const text = string(value);
  return text !== null && /^[A-Z]{2}$/.test(text) ? text : null;
};

const IPINFO_PROVIDES: readonly GeoField[] = [
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
];

/**
 * IPinfo Lite (`ipinfo_lite.mmdb`, the free file): `country` is the country's **name** and
 * `country_code` its ISO code; likewise `continent` / `continent_code`; `asn` ("AS15169"),
 * `as_name`, `as_domain`. https://ipinfo.io/developers/ip-geolocation-data
 */
function mapIpinfoLite(record: Json): GeoPartial {
  return {
    continent: twoLetterCode(record.continent_code),
    country: twoLetterCode(record.country_code),
    country_name: string(record.country),
    asn: ipinfoAsn(record.asn),
    org: string(record.as_name),
  };
}

/** IPinfo's "AS15169" as a number; null for anything else. */
function ipinfoAsn(value: unknown): number | null {
  const text = string(value);
  const match = text ? /^AS(\d{1,10})$/i.exec(text) : null;
  return match ? Number(match[1]) : null;
}

/**
 * IPinfo's older and paid mmdb files (country, country_asn, standard_location, …): `country` is the
 * ISO code (with `country_name`), `continent` the continent code, city, region, lat/lng as strings
 * or numbers. A record with `country_code` is in the Lite layout and read as Lite, so a Lite file
 * opened under this schema is never misread; a `country` that is not a two-letter code (a name) is
 * never returned as a code.
 */
export const ipinfoSchema: MmdbSchema = {
  name: 'ipinfo',
  provides: IPINFO_PROVIDES,
  map: (record) => {
    if (record.country_code !== undefined || record.continent_code !== undefined)
      return mapIpinfoLite(record);
    // Text coordinates are already at their stored precision; numbers may be floats.
    const latLng = (value: unknown) =>
      typeof value === 'string' ? number(Number(value)) : coordinate(value);
    return {
      continent: twoLetterCode(record.continent),
      country: twoLetterCode(record.country),
      country_name: string(record.country_name),
      region: string(record.region),
      city: string(record.city),
      postal_code: string(record.postal_code),
      latitude: latLng(record.lat ?? record.latitude),
      longitude: latLng(record.lng ?? record.longitude),
      timezone: string(record.timezone),
      asn: ipinfoAsn(record.asn),
      org: string(record.as_name) ?? string(record.org),
    };
  },
};

/** IPinfo Lite, chosen from the metadata (a `database_type` naming IPinfo and "lite"). */
export const ipinfoLiteSchema: MmdbSchema = {
  name: 'ipinfo-lite',
  provides: ['continent', 'country', 'country_name', 'asn', 'org'],
  map: mapIpinfoLite,
};

const NETWORK_TYPE_NAMES: ReadonlySet<string> = new Set(NETWORK_TYPES);

/**
 * Network lists compiled by compileNetworkLists (`svc-Network-Lists`): the flags and network type
 * of the lists covering an address, each field's dataset in `sources`. Its networks are artefacts
 * of merging the lists, so they are never reported as the result's `network`.
 */
export const networkListsSchema: MmdbSchema = {
  name: 'network-lists',
  provides: ['is_tor', 'is_proxy', 'is_vpn', 'is_hosting', 'is_relay', 'network_type'],
  map: (record) => {
    const type = string(record.network_type);
    return {
      is_tor: flag(record.is_tor),
      is_proxy: flag(record.is_proxy),
      is_vpn: flag(record.is_vpn),
      is_hosting: flag(record.is_hosting),
      is_relay: flag(record.is_relay),
      network_type: type !== null && NETWORK_TYPE_NAMES.has(type) ? (type as NetworkType) : null,
    };
  },
  sourcesOf: (record) => {
    const sources = object(record.sources);
    if (!sources) return null;
    const named: Partial<Record<GeoField, string>> = {};
    for (const [field, source] of Object.entries(sources))
      if (typeof source === 'string') named[field as GeoField] = source;
    return named;
  },
  reportsNetwork: false,
};

/** Every schema, by name. */
export const MMDB_SCHEMAS: readonly MmdbSchema[] = [
  maxmindCitySchema,
  maxmindAsnSchema,
  maxmindIspSchema,
  maxmindAnonymousSchema,
  maxmindResidentialProxySchema,
  ipLocationDbSchema,
  ipinfoSchema,
  ipinfoLiteSchema,
  networkListsSchema,
];

/** The schema with this name (`city`, `asn`, `isp`, `anonymous-ip`, …), or undefined. */
export function mmdbSchemaByName(name: string): MmdbSchema | undefined {
  return MMDB_SCHEMAS.find((schema) => schema.name === name);
}

/** The database types we recognise, as the unknown-type error lists them. */
const SUPPORTED_TYPES = [
  'GeoIP2/GeoLite2 City, Country, Enterprise (also -Shield, Precision- and regional editions) → city',
  'DBIP-City-Lite, DBIP-Country-Lite, DBIP-Country (and DB-IP files marked "(compat=City)", "(compat=GeoLite2-ASN)", …: read as that type)',
  'GeoLite2-ASN, GeoIP2-ASN, DBIP-ASN-Lite → asn',
  'GeoIP2-ISP → isp',
  'GeoIP2-Anonymous-IP, GeoIP-Anonymous-Plus → anonymous-ip',
  'GeoIP-Residential-Proxy → residential-proxy',
  'ip-location-db "city|country|asn ipv4|ipv6" → ip-location-db',
  'ipinfo …lite… → ipinfo-lite (country_code, continent_code, as_name)',
  'ipinfo … → ipinfo',
  'svc-Network-Lists (compiled network lists) → network-lists',
];

/** The schema a MaxMind-family product name (the part after `GeoIP2-`, `GeoLite2-`, `DBIP-`) reads. */
function maxmindProductSchema(product: string): MmdbSchema | undefined {
  if (product === 'anonymous-ip' || product === 'anonymous-plus') return maxmindAnonymousSchema;
  if (product === 'residential-proxy') return maxmindResidentialProxySchema;
  if (/^asn(-lite)?$/.test(product)) return maxmindAsnSchema;
  if (product === 'isp') return maxmindIspSchema;
  // City-Shield, City-Europe, Precision-Enterprise, City-Lite, …
  if (/^(precision-)?(city|country|enterprise)(-|$)/.test(product)) return maxmindCitySchema;
  return undefined;
}

/**
 * Picks the schema from the file's metadata `database_type`; undefined when unknown. MaxMind's
 * other products (Connection-Type, Domain, IP-Risk, User-Count, …) carry no field of ours and are
 * unknown on purpose: opening one by mistake would answer null for everything.
 */
export function schemaForDatabaseType(databaseType: string): MmdbSchema | undefined {
  const type = databaseType.trim().toLowerCase();
  // DB-IP's files may name the MaxMind layout they follow: "DBIP-Location (compat=City)",
  // "DBIP-ASN-Lite (compat=GeoLite2-ASN)".
  const compat = /\(compat=([a-z0-9-]+)\)/.exec(type)?.[1];
  if (compat) return schemaForDatabaseType(compat) ?? maxmindProductSchema(compat);
  if (type === COMPILED_ASN_DATABASE_TYPE.toLowerCase()) return maxmindAsnSchema;
  if (type === NETWORK_LISTS_DATABASE_TYPE.toLowerCase()) return networkListsSchema;
  // ip-location-db's writer names its files "<country|asn|city> ipv<4|6>".
  if (/^(city|country|asn) ipv[46]$/.test(type) || type.startsWith('ip-location-db'))
    return ipLocationDbSchema;
  if (type.startsWith('ipinfo'))
    return /(^|[^a-z])lite([^a-z]|$)/.test(type) ? ipinfoLiteSchema : ipinfoSchema;
  const family = /^(geoip2?|geolite2|dbip)-(.+)$/.exec(type);
  return family ? maxmindProductSchema(family[2] as string) : undefined;
}

/** The error for a file whose database_type no schema is known for: what is supported and what to do. */
export function unknownDatabaseTypeError(label: string, databaseType: string): Error {
  return new Error(
    `${label}: unknown database_type "${databaseType}". Recognised types:\n` +
      SUPPORTED_TYPES.map((line) => `  - ${line}\n`).join('') +
      'For another file, choose the schema that reads its records: in code ' +
      "openMmdbBackend({ source, schema: maxmindCitySchema }) (or mmdbSchemaByName('city')), " +
      'in the CLI svc geo --db <file> --schema <name>; schema names: ' +
      `${MMDB_SCHEMAS.map((schema) => schema.name).join(', ')}.`,
  );
}

/**
 * Checks on reload that a new file holds the kind of data the backend was opened with: its
 * database_type must map to the schema in use, or be the type the first file had (for types we do
 * not recognise, read with a schema the caller chose). Without this check, replacing a City file
 * with an ASN file under an explicit schema would answer null for every field.
 */
export function checkSchemaFits(
  label: string,
  schema: MmdbSchema,
  openedType: string,
  databaseType: string,
): void {
  if (databaseType.toLowerCase() === openedType.toLowerCase()) return;
  const detected = schemaForDatabaseType(databaseType);
  if (detected === schema) return;
  throw new Error(
    `${label}: database_type "${databaseType}" does not fit the ${schema.name} schema this backend ` +
      `reads (opened with "${openedType}"${detected ? `; it is read with the ${detected.name} schema` : ''}); ` +
      'the old data keeps serving',
  );
}

function anyTrue(...values: unknown[]): boolean | null {
  if (values.every((value) => value === undefined)) return null;
  return values.some((value) => value === true);
}
