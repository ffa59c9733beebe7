/** The fields a backend may supply; the resolver merges them field by field (first non-null wins). */
export interface GeoFields {
  continent: string | null;
  country: string | null;
  country_name: string | null;
  region: string | null;
  city: string | null;
  postal_code: string | null;
  latitude: number | null;
  longitude: number | null;
  accuracy_radius: number | null;
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
}

export type GeoField = keyof GeoFields;

/** What one backend knows about one address. */
export type GeoPartial = Partial<GeoFields>;

/** One source of geolocation data. Lookups are synchronous: backends hold their data in memory. */
export interface GeoBackend {
  /** Stable name used in `sources` (e.g. `maxmind-city`, `dbip-asn`). */
  readonly id: string;
  /** The fields this backend can supply. */
  readonly provides: readonly GeoField[];
  /** The answer for a canonical address (already validated), or null when the data has none. */
  lookup(ip: string, family: 4 | 6): GeoPartial | null;
  /** Increases whenever the data changes (reload, watcher), so caches above it can drop old answers. */
  readonly generation?: number;
  /** Re-reads the data; on failure the old data keeps serving and the error is thrown. */
  reload?(): Promise<void>;
  /** Releases watchers and handles. */
  close?(): void;
}
