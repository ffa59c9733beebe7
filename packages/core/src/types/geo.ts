/** The result of GET /geo/{ip} (spec §2.3). Fields the data cannot supply are null. */
export interface GeoLocationResult {
  ip: string;
  continent: string | null;
  /** ISO 3166-1 alpha-2 */
  country: string | null;
  country_name: string | null;
  /** English name of the first-level subdivision (state, province, …). */
  region: string | null;
  /**
   * ISO 3166-2 code of that subdivision, country included (`US-CA`, `GB-ENG`); null when the data
   * has no code (DB-IP Lite has names only). Not one of §2.3's fields: an addition of ours.
   */
  region_code: string | null;
  city: string | null;
  latitude: number | null;
  longitude: number | null;
  /** IANA zone name */
  timezone: string | null;
  asn: number | null;
  org: string | null;
  is_proxy: boolean;
  is_vpn: boolean;
}
