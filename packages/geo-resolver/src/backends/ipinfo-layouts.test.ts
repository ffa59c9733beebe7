import { createMmdbWriter } from '@svc/mmdb-writer';
import { describe, expect, it } from 'vitest';
import { openMmdbBackend } from './mmdb.js';
import { ipinfoLiteSchema, ipinfoSchema, schemaForDatabaseType } from './mmdb-schemas.js';

/** IPinfo Lite's record for 8.8.8.8 as IPinfo's documentation shows it (ipinfo.io/developers/lite-api). */
const LITE_RECORD = {
  asn: 'AS15169',
  as_name: 'Google LLC',
  as_domain: 'google.com',
  country_code: 'US',
  country: 'United States',
  continent_code: 'NA',
  continent: 'North America',
};

/** The older free country_asn layout: `country` is the code, the name is `country_name`. */
const OLDER_RECORD = {
  country: 'US',
  country_name: 'United States',
  continent: 'NA',
  continent_name: 'North America',
  asn: 'AS15169',
  as_name: 'Google LLC',
  as_domain: 'google.com',
};

const file = (databaseType: string, record: Record<string, unknown>) => {
  const writer = createMmdbWriter({ databaseType, ipVersion: 6, recordSize: 28 });
  writer.insert('8.8.8.0/24', record as never);
  return writer.toBuffer();
};

const EXPECTED = {
  continent: 'NA',
  country: 'US',
  country_name: 'United States',
  asn: 15169,
  org: 'Google LLC',
};

describe('IPinfo layouts', () => {
  it('picks the Lite schema from the metadata and the older one otherwise', () => {
    expect(schemaForDatabaseType('ipinfo ipinfo_lite.mmdb')).toBe(ipinfoLiteSchema);
    expect(schemaForDatabaseType('IPinfo Lite')).toBe(ipinfoLiteSchema);
    expect(schemaForDatabaseType('ipinfo country_asn.mmdb')).toBe(ipinfoSchema);
    expect(schemaForDatabaseType('ipinfo standard_location.mmdb')).toBe(ipinfoSchema);
  });

  it('reads a Lite file: the code from country_code, the name from country', async () => {
    const backend = await openMmdbBackend({ source: file('ipinfo ipinfo_lite.mmdb', LITE_RECORD) });
    expect(backend.lookup('8.8.8.8', 4)).toMatchObject(EXPECTED);
  });

  it('reads a Lite file right from its fields when the metadata does not say Lite', async () => {
    const backend = await openMmdbBackend({ source: file('ipinfo country_asn.mmdb', LITE_RECORD) });
    expect(backend.lookup('8.8.8.8', 4)).toMatchObject(EXPECTED);
  });

  it('reads the older layout beside it: the code from country', async () => {
    const backend = await openMmdbBackend({ source: file('ipinfo country_asn.mmdb', OLDER_RECORD) });
    expect(backend.lookup('8.8.8.8', 4)).toMatchObject(EXPECTED);
  });

  it('never returns a country name as a code', async () => {
    const { country_code: _, continent_code: __, ...liteWithoutCodes } = LITE_RECORD;
    const backend = await openMmdbBackend({ source: file('ipinfo country_asn.mmdb', liteWithoutCodes) });
    expect(backend.lookup('8.8.8.8', 4)).toMatchObject({ country: null, continent: null, asn: 15169 });
  });
});
