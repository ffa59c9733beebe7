import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type StaticSite, startStaticSite } from '@svc/testkit';
import { sharedTempDir } from '@svc/testkit/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from './serve.js';
import { printedLiveKey, serveForTest } from './testing/serve-for-test.js';
import { GEO_FIXTURES } from './testing/test-server.js';

// svc serve with geo.geofeeds: a file and a URL (through the SSRF guard, loopback allowed for the
// test) outrank the configured data; a reload onto a broken file keeps the old rows.

const dir = sharedTempDir('svc-serve-geofeed-');
let site: StaticSite;
let server: RunningServer | undefined;
const FILE_FEED = '# prefix,country,region,city,postal\n81.2.69.142/31,GB,GB-MAN,Manchester,M1\nbad,GB,,,\n';
const URL_FEED = '81.2.69.160/27,GB,GB-LIV,Liverpool,\n';

beforeAll(async () => {
  await writeFile(join(dir(), 'feed.csv'), FILE_FEED);
  site = await startStaticSite({
    routes: { '/feed.csv': { body: URL_FEED, headers: { 'content-type': 'text/csv' } } },
  });
});
afterAll(async () => {
  await server?.close();
  await site?.close();
});

describe('svc serve with geo.geofeeds', () => {
  it('answers GET /v2/geo from the feeds, lists them in health, and keeps them through a bad reload', async () => {
    const started = await serveForTest(
      dir(),
      {
        geo: {
          databases: [`${GEO_FIXTURES}GeoIP2-City-Test.mmdb`],
          geofeeds: [join(dir(), 'feed.csv'), `${site.url}/feed.csv`],
        },
        verifyCache: { store: 'off' },
      },
      { geofeedAllowedAddress: () => true },
    );
    server = started.server;
    const { err } = started;
    const live = printedLiveKey(err()) as string;
    const geo = async (ip: string) => {
      const response = await fetch(`${server?.url}/v2/geo/${ip}`, { headers: { 'x-api-key': live } });
      expect(response.status).toBe(200);
      return (await response.json()) as Record<string, unknown> & { sources: Record<string, string> };
    };
    const manchester = await geo('81.2.69.142');
    expect(manchester).toMatchObject({
      country: 'GB',
      region_code: 'GB-MAN',
      city: 'Manchester',
      latitude: null,
    });
    expect(manchester.sources).toMatchObject({ city: 'geofeed', country: 'geofeed' });
    expect(await geo('81.2.69.170')).toMatchObject({ city: 'Liverpool', region_code: 'GB-LIV' });
    expect(err()).toContain(`geofeed ${join(dir(), 'feed.csv')}:3: "bad" is not an IP prefix`);

    const health = (await (await fetch(`${server.url}/v2/health`)).json()) as {
      geo: { databases: Array<{ id: string; type: string; version?: string }> };
    };
    const feeds = health.geo.databases.filter((database) => database.id === 'geofeed');
    expect(feeds).toHaveLength(2);
    expect(feeds[0]).toMatchObject({
      type: 'geofeed',
      version: expect.stringMatching(/^\d{4}-\d{2}-\d{2} sha256:[0-9a-f]{12}$/),
    });

    await writeFile(join(dir(), 'feed.csv'), 'maintenance\n');
    await server.reloadGeo();
    expect(await geo('81.2.69.142')).toMatchObject({ city: 'Manchester' });
    // (The refusal goes to the server's log, silent here.)
  });
});
