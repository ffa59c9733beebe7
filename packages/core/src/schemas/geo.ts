import { type Static, Type } from 'typebox';
import { Nullable } from './common.js';

/**
 * The result of GET /geo/{ip} (spec §2.3). Fields the data cannot supply are null. The optional
 * fields are additions of ours that `@svc/geo-resolver` always fills (and so the server always
 * returns).
 */
export const GeoLocationResultSchema = Type.Object(
  {
    ip: Type.String({ description: 'The address looked up, in canonical form' }),
    continent: Nullable(Type.String({ description: 'Two-letter continent code (EU, NA, …)' })),
    country: Nullable(Type.String({ description: 'ISO 3166-1 alpha-2' })),
    country_name: Nullable(Type.String()),
    region: Nullable(Type.String({ description: 'English name of the first-level subdivision' })),
    region_code: Nullable(
      Type.String({
        description:
          'ISO 3166-2 code of that subdivision, country included (US-CA); null when the data has names only. An addition to spec §2.3',
      }),
    ),
    city: Nullable(Type.String()),
    latitude: Nullable(Type.Number()),
    longitude: Nullable(Type.Number()),
    timezone: Nullable(Type.String({ description: 'IANA zone name' })),
    asn: Nullable(Type.Integer()),
    org: Nullable(Type.String()),
    is_proxy: Type.Boolean({
      description:
        'A public or residential proxy or a Tor exit (spec §2.3): set by a Tor exit list or an anonymity database (MaxMind Anonymous IP, Residential Proxy); false when no loaded source lists the address',
    }),
    is_vpn: Type.Boolean({
      description:
        'An anonymous VPN exit: set only by an anonymity database or a VPN list you configure (no openly licensed VPN list is bundled); false otherwise. Hosting alone never makes an address a VPN',
    }),
    network: Type.Optional(Nullable(Type.String({ description: 'The matched network in CIDR notation' }))),
    accuracy_radius_km: Type.Optional(
      Nullable(
        Type.Number({
          description:
            "Radius in km around latitude/longitude within which the data's vendor puts the address (MaxMind: 67 % confidence), from the same source as the coordinates; null when the data has no radius (the bundled DB-IP Lite data has none)",
        }),
      ),
    ),
    postal_code: Type.Optional(Nullable(Type.String())),
    isp: Type.Optional(Nullable(Type.String())),
    is_hosting: Type.Optional(
      Nullable(
        Type.Boolean({
          description:
            "In a cloud, hosting or CDN provider's published ranges (network_type hosting), or in an AS the ASN table calls hosting; false when the ASN table names another type; null when no source knows. Hosting alone never sets is_vpn or is_proxy",
        }),
      ),
    ),
    is_tor: Type.Optional(
      Nullable(
        Type.Boolean({
          description:
            "A Tor exit relay's address (the Tor Project's exit list); false when the list is loaded and does not name it. A Tor exit is also is_proxy",
        }),
      ),
    ),
    is_relay: Type.Optional(
      Nullable(
        Type.Boolean({
          description:
            "An egress address of a location-preserving privacy relay (Apple's iCloud Private Relay egress ranges): the user's region is kept, so it is not a VPN or proxy; false when the list is loaded and does not name it",
        }),
      ),
    ),
    network_type: Type.Optional(
      Nullable(
        Type.Union(
          [
            Type.Literal('hosting'),
            Type.Literal('isp'),
            Type.Literal('mobile'),
            Type.Literal('business'),
            Type.Literal('education'),
            Type.Literal('government'),
          ],
          {
            description:
              "The kind of network: hosting from the providers' published ranges, else from the ASN table (`sources.network_type` names which); null when neither knows the address",
          },
        ),
      ),
    ),
    sources: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        description:
          "Which data source supplied each field: a dataset's id, `geofeed` for fields an operator's RFC 8805 geofeed set, `derived` for fields computed offline",
      }),
    ),
  },
  { description: 'An IP geolocation result (spec §2.3)' },
);
/** The result of GET /geo/{ip} (spec §2.3). Fields the data cannot supply are null. */
export type GeoLocationResult = Static<typeof GeoLocationResultSchema>;
