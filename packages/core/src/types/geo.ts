/** The result of GET /geo/{ip} (spec §2.3). Fields the data cannot supply are null. */
export interface GeoLocationResult {
  ip: string;
  continent: string | null;
  /** ISO 3166-1 alpha-2 */
  country: string | null;
  country_name: string | null;
  region: string | null;
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
