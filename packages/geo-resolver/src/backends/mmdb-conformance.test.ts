import { mmdbTypes } from '@svc/mmdb-writer';
import { describeMmdbBackend, u32 } from '../testing/describe-mmdb-backend.js';
import {
  ipinfoLiteSchema,
  ipinfoSchema,
  ipLocationDbSchema,
  maxmindAnonymousSchema,
  maxmindAsnSchema,
  maxmindCitySchema,
  maxmindIspSchema,
} from './mmdb-schemas.js';

const names = (en: string) => ({ names: { en, de: `${en} (de)` } });

describeMmdbBackend('MaxMind GeoIP2/GeoLite2 City', {
  databaseType: 'GeoLite2-City',
  schema: maxmindCitySchema,
  record: {
    continent: { code: 'EU', ...names('Europe') },
    country: { iso_code: 'SE', ...names('Sweden') },
    subdivisions: [{ iso_code: 'AB', ...names('Stockholm County') }],
    city: names('Stockholm'),
    postal: { code: '111 22' },
    location: { latitude: 59.3293, longitude: 18.0686, accuracy_radius: 20, time_zone: 'Europe/Stockholm' },
  },
  expected: {
    continent: 'EU',
    country: 'SE',
    country_name: 'Sweden',
    region: 'Stockholm County',
    city: 'Stockholm',
    postal_code: '111 22',
    latitude: 59.3293,
    timezone: 'Europe/Stockholm',
    accuracy_radius_km: 20,
  },
});

describeMmdbBackend('DB-IP City Lite (MaxMind layout)', {
  databaseType: 'DBIP-City-Lite',
  schema: maxmindCitySchema,
  record: {
    continent: { code: 'AS', ...names('Asia') },
    country: { iso_code: 'JP', ...names('Japan') },
    city: names('Osaka'),
    location: { latitude: 34.69, longitude: 135.5 },
  },
  expected: { continent: 'AS', country: 'JP', city: 'Osaka', latitude: 34.69, timezone: null },
});

describeMmdbBackend('MaxMind ASN', {
  databaseType: 'GeoLite2-ASN',
  schema: maxmindAsnSchema,
  record: { autonomous_system_number: u32(64500), autonomous_system_organization: 'Example Networks' },
  expected: { asn: 64500, org: 'Example Networks' },
});

describeMmdbBackend('MaxMind ISP', {
  databaseType: 'GeoIP2-ISP',
  schema: maxmindIspSchema,
  record: { autonomous_system_number: u32(64501), isp: 'Example ISP', organization: 'Example Org' },
  expected: { asn: 64501, isp: 'Example ISP', org: 'Example Org' },
});

describeMmdbBackend('MaxMind Anonymous-IP', {
  databaseType: 'GeoIP2-Anonymous-IP',
  schema: maxmindAnonymousSchema,
  record: { is_anonymous: true, is_public_proxy: true, is_hosting_provider: true },
  expected: { is_vpn: false, is_proxy: true, is_hosting: true, is_tor: false },
});

describeMmdbBackend('GeoIP2 Enterprise (ASN, organisation and ISP in traits)', {
  databaseType: 'GeoIP2-Enterprise',
  schema: maxmindCitySchema,
  record: {
    country: { iso_code: 'US', ...names('United States') },
    subdivisions: [{ iso_code: 'CA', ...names('California') }],
    city: names('Mountain View'),
    location: { latitude: 37.386, longitude: -122.0838 },
    traits: {
      autonomous_system_number: u32(15169),
      autonomous_system_organization: 'GOOGLE',
      isp: 'Google',
      organization: 'Google LLC',
    },
  },
  expected: {
    country: 'US',
    region: 'California',
    region_code: 'US-CA',
    asn: 15169,
    org: 'GOOGLE',
    isp: 'Google',
    latitude: 37.386,
  },
});

// ip-location-db's writer names files "city ipv4", "country ipv6", "asn ipv4" and stores
// coordinates as 32-bit floats.
describeMmdbBackend('ip-location-db flat city', {
  databaseType: 'city ipv4',
  schema: ipLocationDbSchema,
  record: {
    country_code: 'BR',
    state1: 'São Paulo',
    state2: '',
    city: 'Campinas',
    postcode: '13000',
    latitude: mmdbTypes.float(-22.9),
    longitude: mmdbTypes.float(-47.06),
    timezone: '',
  },
  expected: {
    country: 'BR',
    region: 'São Paulo',
    city: 'Campinas',
    postal_code: '13000',
    latitude: -22.9,
    longitude: -47.06,
    timezone: null,
  },
});

describeMmdbBackend('ip-location-db country', {
  databaseType: 'country ipv6',
  schema: ipLocationDbSchema,
  record: { country_code: 'KE' },
  expected: { country: 'KE', city: null },
});

describeMmdbBackend('ip-location-db ASN', {
  databaseType: 'asn ipv4',
  schema: ipLocationDbSchema,
  record: { autonomous_system_number: u32(64502), autonomous_system_organization: 'Example Transit' },
  expected: { asn: 64502, org: 'Example Transit' },
});

describeMmdbBackend('IPinfo', {
  databaseType: 'ipinfo standard_location',
  schema: ipinfoSchema,
  record: {
    country: 'NZ',
    city: 'Wellington',
    region: 'Wellington',
    lat: '-41.28664',
    lng: '174.77557',
    timezone: 'Pacific/Auckland',
    asn: 'AS9500',
    as_name: 'One New Zealand',
  },
  expected: {
    country: 'NZ',
    city: 'Wellington',
    latitude: -41.28664,
    longitude: 174.77557,
    timezone: 'Pacific/Auckland',
    asn: 9500,
    org: 'One New Zealand',
  },
});

// IPinfo Lite as IPinfo documents it (https://ipinfo.io/developers/ip-geolocation-data): the
// country's name in `country`, its code in `country_code`.
describeMmdbBackend('IPinfo Lite', {
  databaseType: 'ipinfo ipinfo_lite.mmdb',
  schema: ipinfoLiteSchema,
  record: {
    asn: 'AS9500',
    as_name: 'One New Zealand',
    as_domain: 'one.nz',
    country_code: 'NZ',
    country: 'New Zealand',
    continent_code: 'OC',
    continent: 'Oceania',
  },
  expected: {
    continent: 'OC',
    country: 'NZ',
    country_name: 'New Zealand',
    asn: 9500,
    org: 'One New Zealand',
  },
});
