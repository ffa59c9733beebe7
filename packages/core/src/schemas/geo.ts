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
    is_proxy: Type.Boolean(),
    is_vpn: Type.Boolean(),
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
    is_hosting: Type.Optional(Nullable(Type.Boolean())),
    is_tor: Type.Optional(Nullable(Type.Boolean())),
    sources: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        description: 'Which data source supplied each field (`derived` for fields computed offline)',
      }),
    ),
  },
  { description: 'An IP geolocation result (spec §2.3)' },
);
/** The result of GET /geo/{ip} (spec §2.3). Fields the data cannot supply are null. */
export type GeoLocationResult = Static<typeof GeoLocationResultSchema>;
