import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type StaticSite, startStaticSite } from '@svc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../exit-codes.js';
import { main } from '../main.js';
import { captureIo } from '../testing/capture-io.js';

const fixtures = fileURLToPath(new URL('../../../../fixtures/maxmind-db/test-data/', import.meta.url));
const dbs = ['--db', `${fixtures}GeoIP2-City-Test.mmdb`, '--db', `${fixtures}GeoLite2-ASN-Test.mmdb`];
// 81.2.69.142 is London, England in MaxMind's City test file; the feed says Manchester.
const FEED =
  '# prefix,country,region,city,postal\n81.2.69.142/31,GB,GB-MAN,Manchester,M1\nnot-a-prefix,GB,,,\n';

describe('svc geo --geofeed', () => {
  let dir: string;
  let site: StaticSite;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-geofeed-'));
    await writeFile(join(dir, 'feed.csv'), FEED);
    site = await startStaticSite({
      routes: { '/geofeed.csv': { body: FEED, headers: { 'content-type': 'text/csv' } } },
    });
  });
  afterAll(async () => {
    await site.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("answers the feed's location for its prefixes, sources say geofeed, bad rows on stderr", async () => {
    const io = { ...captureIo(), cwd: dir };
    expect(await main(['geo', '81.2.69.142', '--json', ...dbs, '--geofeed', 'feed.csv'], io)).toBe(EXIT.ok);
    const result = JSON.parse(io.out());
    expect(result).toMatchObject({
      country: 'GB',
      region_code: 'GB-MAN',
      city: 'Manchester',
      postal_code: 'M1',
      network: '81.2.69.142/31',
      // The database's coordinates and radius are London's: not kept for a Manchester row.
      latitude: null,
      accuracy_radius_km: null,
    });
    expect(result.sources).toMatchObject({ country: 'geofeed', city: 'geofeed', region_code: 'geofeed' });
    expect(io.err()).toContain(`geofeed ${join(dir, 'feed.csv')}:3: "not-a-prefix" is not an IP prefix`);
  });

  it('fetches a URL through the SSRF guard, which refuses loopback unless allowed', async () => {
    const refused = captureIo();
    expect(
      await main(['geo', '81.2.69.142', ...dbs, '--geofeed', `${site.url}/geofeed.csv`], refused),
    ).not.toBe(EXIT.ok);
    const allowed = captureIo();
    expect(
      await main(
        [
          'geo',
          '81.2.69.142',
          '--json',
          ...dbs,
          '--geofeed',
          `${site.url}/geofeed.csv`,
          '--allow-private-geofeed-url',
        ],
        allowed,
      ),
    ).toBe(EXIT.ok);
    expect(JSON.parse(allowed.out())).toMatchObject({ city: 'Manchester', sources: { city: 'geofeed' } });
  });

  it('lists each feed in --sources with its version (file date and hash)', async () => {
    const io = { ...captureIo(), cwd: dir };
    expect(await main(['geo', '--sources', '--json', '--geofeed', 'feed.csv'], io)).toBe(EXIT.ok);
    const { datasets } = JSON.parse(io.out()) as { datasets: Array<{ id: string; version: string | null }> };
    expect(datasets[0]).toMatchObject({
      id: 'geofeed',
      version: expect.stringMatching(/^\d{4}-\d{2}-\d{2} sha256:[0-9a-f]{12}$/),
    });
    expect(datasets.map((dataset) => dataset.id)).toContain('dbip-city-lite');
  });
});
