import type { ParsedIp } from '@svc/ip-address';

/** The fields a backend may supply; the resolver merges them field by field (first non-null wins). */
export interface GeoFields {
  continent: string | null;
  country: string | null;
  country_name: string | null;
  /** English name of the first-level subdivision (state, province, …). */
  region: string | null;
  /** ISO 3166-2 code of that subdivision (`US-CA`, `GB-ENG`), when the data has it. */
  region_code: string | null;
  city: string | null;
  postal_code: string | null;
  latitude: number | null;
  longitude: number | null;
  accuracy_radius_km: number | null;
  timezone: string | null;
  asn: number | null;
  org: string | null;
  isp: string | null;
  /** The network the answer came from, in CIDR notation. */
  network: string | null;
  is_proxy: boolean | null;
  is_vpn: boolean | null;
  is_hosting: boolean | null;
  is_tor: boolean | null;
  /** A location-preserving privacy relay's egress (iCloud Private Relay): the location stays meaningful. */
  is_relay: boolean | null;
  /** What kind of network the address is in: hosting, isp, mobile, business, education, government. */
  network_type: NetworkType | null;
}

/** The kinds of network `network_type` names (the ASN table's and the hosting lists' vocabulary). */
export const NETWORK_TYPES = ['hosting', 'isp', 'mobile', 'business', 'education', 'government'] as const;
export type NetworkType = (typeof NETWORK_TYPES)[number];

export type GeoField = keyof GeoFields;

/** What one backend knows about one address. */
export type GeoPartial = Partial<GeoFields>;

/** Which fields of an answer have a value, in the answer's key order. */
export interface FieldLayout {
  readonly fields: readonly GeoField[];
  /** Equal lists share one id (≥ 1), so the id identifies the shape of an answer; -1 if not shared. */
  readonly id: number;
  /** Sources the answer names for some of its fields (datasets inside one backend); else the backend's id. */
  readonly sources?: Readonly<Partial<Record<GeoField, string>>>;
}

/** An answer shared by every address of one data record, as the fast path returns it. */
export interface SharedAnswer {
  /** Frozen; never has `network` (that depends on the address). */
  readonly fields: Readonly<GeoPartial>;
  readonly layout: FieldLayout;
}

/** Where lookupAddress reports the network an answer came from. */
export interface MatchedNetwork {
  /** Prefix length of the matched network; for IPv4 counted within the IPv4 address (0 to 32). */
  prefixLength: number;
}

/** What one database behind a backend is, as `GeoResolver.databases()` lists it (e.g. for a health check). */
export interface GeoDatabaseDescription {
  /** The backend's id (its name in `sources`); a backend made of several files lists each. */
  id: string;
  /** An mmdb file's `database_type` metadata (`DBIP-City-Lite`, `GeoLite2-ASN`); `cidr-list` for CIDR lists. */
  databaseType: string;
  /** When the data was built (an mmdb file's `build_epoch`); null when the data does not say. */
  buildEpoch: Date | null;
  /** Where the data was read from: a file path (or paths), else `buffer` or `inline`. */
  source: string;
  /** The dataset's version (a package version, a snapshot or fetch date), when known. */
  version?: string;
  /** The licence or public-data statement it is used under, when known. */
  licence?: string;
  /** The attribution its licence requires, when it requires one. */
  attribution?: string | null;
}

/** One source of geolocation data. Lookups are synchronous: backends hold their data in memory. */
export interface GeoBackend {
  /** Stable name used in `sources` (e.g. `maxmind-city`, `dbip-asn`). */
  readonly id: string;
  /** The fields this backend can supply. */
  readonly provides: readonly GeoField[];
  /** The answer for a canonical address (already validated), or null when the data has none. */
  lookup(ip: string, family: 4 | 6): GeoPartial | null;
  /**
   * Optional fast path the resolver prefers: the answer for an address it already parsed (the
   * embedded IPv4 for 6to4, Teredo and NAT64), shared between lookups and without `network`; the
   * prefix length of the network goes to `match` instead, so the network text is only built when
   * this backend's network is the one reported. Must agree with `lookup`.
   */
  lookupAddress?(address: ParsedIp, match: MatchedNetwork): SharedAnswer | null;
  /**
   * Whether the networks of this backend's answers are worth reporting as the result's `network`
   * (false for compiled lists, whose networks are artefacts of merging). @default true
   */
  readonly reportsNetwork?: boolean;
  /** Increases whenever the data changes (reload, watcher), so caches above it can drop old answers. */
  readonly generation?: number;
  /** Re-reads the data; on failure the old data keeps serving and the error is thrown. */
  reload?(): Promise<void>;
  /** The data serving now (after a reload, the new data), one entry per database file. */
  describe?(): GeoDatabaseDescription[];
  /** Releases watchers and handles. */
  close?(): void;
}
