import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type StaticSite, startStaticSite } from '@svc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GeoBackend } from '../backend.js';
import { createGeoResolver } from '../resolver.js';
import { plainDownload } from '../testing/download.js';
import { openGeofeedBackend } from './backend.js';
import { withGeofeed } from './overlay.js';
import type { GeofeedProblem } from './parse.js';

const FIXTURES = fileURLToPath(new URL('../../../../fixtures/geofeeds/', import.meta.url));

const download = plainDownload;

/** A database answering the same city for every address, as the bundled data would. */
const database: GeoBackend = {
  id: 'database',
  provides: ['country', 'region', 'region_code', 'city', 'latitude', 'longitude', 'asn', 'org'],
  lookup: () => ({
    country: 'US',
    region: 'California',
    region_code: 'US-CA',
    city: 'Mountain View',
    latitude: 37.4,
    longitude: -122.1,
    asn: 15169,
    org: 'Google LLC',
  }),
};

describe('openGeofeedBackend', () => {
  let dir: string;
  let site: StaticSite;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'geofeed-'));
    site = await startStaticSite({
      routes: {
        '/geofeed.csv': {
          body: await readFile(`${FIXTURES}rfc8805-example.csv`, 'utf8'),
          headers: { 'content-type': 'text/csv' },
        },
        '/rate-limited.csv': { body: '<!doctype html><title>Too many requests</title>\n', headers: {} },
      },
    });
  });
  afterAll(async () => {
    await site.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers the longest prefix, IPv4 and IPv6, with the network it came from', async () => {
    const backend = await openGeofeedBackend({ feeds: [`${FIXTURES}rfc8805-example.csv`] });
    expect(backend.lookup('192.0.2.5', 4)).toEqual({
      country: 'US',
      network: '192.0.2.5/32',
      region_code: 'US-AL',
      city: 'Alabaster',
      postal_code: '35007',
    });
    expect(backend.lookup('192.0.2.6', 4)).toEqual({
      country: 'US',
      network: '192.0.2.0/25',
      region_code: 'US-AL',
    });
    expect(backend.lookup('192.0.2.200', 4)).toMatchObject({ country: 'PL', network: '192.0.2.128/25' });
    expect(backend.lookup('2001:db8:cafe::1', 6)).toMatchObject({
      network: '2001:db8:cafe::/48',
      region_code: 'PL-MZ',
    });
    expect(backend.lookup('2001:db8:1::1', 6)).toEqual({ country: 'PL', network: '2001:db8::/32' });
    expect(backend.lookup('198.51.100.1', 4)).toBeNull();
    expect(backend.lookup('2001:db9::1', 6)).toBeNull();
    const [description] = backend.describe?.() ?? [];
    expect(description).toMatchObject({
      id: 'geofeed',
      databaseType: 'geofeed',
      source: `${FIXTURES}rfc8805-example.csv`,
    });
    expect(description?.version).toMatch(/^\d{4}-\d{2}-\d{2} sha256:[0-9a-f]{12}$/);
  });

  it('reads a URL served over HTTP through the download it is given, and needs one', async () => {
    const backend = await openGeofeedBackend({ feeds: [`${site.url}/geofeed.csv`], download });
    expect(backend.lookup('192.0.2.130', 4)).toMatchObject({ country: 'PL', postal_code: '02-784' });
    expect(backend.describe?.()[0]?.source).toBe(`${site.url}/geofeed.csv`);
    await expect(openGeofeedBackend({ feeds: [`${site.url}/geofeed.csv`] })).rejects.toThrow(
      /a URL needs a download function/,
    );
    await expect(openGeofeedBackend({ feeds: [`${site.url}/rate-limited.csv`], download })).rejects.toThrow(
      /no valid row among 1 \(line 1: "<!doctype html><title>Too many requests<\/title>" is not an IP prefix\)/,
    );
  });

  it('reports bad rows without failing, and refuses a feed over the size bound', async () => {
    const reported: Array<[string, readonly GeofeedProblem[]]> = [];
    const feed = `${FIXTURES}bad-rows.csv`;
    const backend = await openGeofeedBackend({
      feeds: [feed],
      onProblems: (name, problems) => reported.push([name, problems]),
    });
    expect(backend.lookup('198.51.100.9', 4)).toMatchObject({ country: 'NL', city: 'Amsterdam' });
    expect(reported).toHaveLength(1);
    expect(reported[0]?.[1].map((problem) => problem.line)).toEqual([4, 5, 6, 7, 8, 9, 10, 11, 13]);
    expect(backend.problems().get(feed)).toHaveLength(9);
    await expect(openGeofeedBackend({ feeds: [feed], maxBytes: 100 })).rejects.toThrow(
      /larger than 100 bytes/,
    );
  });

  it('keeps the old data when a reload finds a bad file, and takes a good one', async () => {
    const path = join(dir, 'feed.csv');
    await writeFile(path, '198.51.100.0/24,NL,NL-NH,Amsterdam,\n');
    const backend = await openGeofeedBackend({ feeds: [path] });
    await writeFile(path, '<html>maintenance</html>\n');
    await expect(backend.reload?.()).rejects.toThrow(/no valid row/);
    expect(backend.lookup('198.51.100.1', 4)).toMatchObject({ city: 'Amsterdam' });
    expect(backend.generation).toBe(0);
    await writeFile(path, '198.51.100.0/24,BE,BE-BRU,Brussels,\n');
    await backend.reload?.();
    expect(backend.lookup('198.51.100.1', 4)).toMatchObject({ country: 'BE', city: 'Brussels' });
    expect(backend.generation).toBe(1);
  });

  it('outranks the database in a resolver for the prefixes it covers; sources say geofeed', async () => {
    const path = join(dir, 'public.csv');
    await copyFile(`${FIXTURES}public-prefixes.csv`, path);
    const geofeed = await openGeofeedBackend({ feeds: [path] });
    const resolver = await createGeoResolver({
      backends: withGeofeed(geofeed, [database]),
      timezoneFromCoordinates: false,
    });
    // Another country than the database's: none of the database's location is kept.
    const covered = resolver.lookup('8.8.8.8');
    expect(covered).toMatchObject({
      country: 'NZ',
      country_name: 'New Zealand',
      region: null,
      region_code: 'NZ-AUK',
      city: 'Auckland',
      latitude: null,
      longitude: null,
      accuracy_radius_km: null,
      network: '8.8.8.8/32',
      asn: 15169,
      org: 'Google LLC',
    });
    expect(covered.sources).toMatchObject({
      country: 'geofeed',
      region_code: 'geofeed',
      city: 'geofeed',
      network: 'geofeed',
      asn: 'database',
    });
    expect(covered.sources.latitude).toBeUndefined();
    expect(resolver.lookup('8.8.8.9')).toMatchObject({
      region_code: 'NZ-WGN',
      city: 'Wellington',
      postal_code: '6011',
    });
    expect(resolver.lookup('2001:4860:4860::8888')).toMatchObject({
      country: 'JP',
      region_code: 'JP-13',
      city: 'Tokyo',
      region: null,
    });
    // The same city: the database's coordinates describe it and are kept.
    const agreeing = resolver.lookup('8.8.4.4');
    expect(agreeing).toMatchObject({
      city: 'Mountain View',
      region: 'California',
      latitude: 37.4,
      postal_code: '94043',
    });
    expect(agreeing.sources).toMatchObject({ city: 'geofeed', latitude: 'database', postal_code: 'geofeed' });
    // Same country, another region: the country level only.
    expect(resolver.lookup('8.34.208.1')).toMatchObject({
      region: null,
      region_code: 'US-NY',
      city: 'New York',
      latitude: null,
    });
    // Same region, another city: the region's name, no coordinates.
    expect(resolver.lookup('8.35.192.1')).toMatchObject({
      region: 'California',
      city: 'San Jose',
      latitude: null,
    });
    const elsewhere = resolver.lookup('1.1.1.1');
    expect(elsewhere).toMatchObject({ country: 'US', city: 'Mountain View', latitude: 37.4 });
    expect(elsewhere.sources.country).toBe('database');
    expect(resolver.databases().map((entry) => entry.id)).toEqual(['geofeed']);
  });
});
