import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { type StaticSite, startStaticSite } from '@svc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../exit-codes.js';
import { installedCityPath } from '../geo-update.js';
import { main } from '../main.js';
import { expectApiJson, ISO_8601 } from '../testing/api-json.js';
import { captureIo } from '../testing/capture-io.js';

const fixtures = fileURLToPath(new URL('../../../../fixtures/maxmind-db/', import.meta.url));

describe('svc geo update against a download server on loopback', () => {
  let site: StaticSite;
  let dataDir: string;
  const io = () => {
    const captured = captureIo();
    captured.env.SVC_DATA_DIR = dataDir;
    return captured;
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'svc-update-'));
    const good = await readFile(`${fixtures}test-data/GeoIP2-City-Test.mmdb`);
    const corrupt = await readFile(`${fixtures}bad-data/libmaxminddb/libmaxminddb-corrupt-search-tree.mmdb`);
    site = await startStaticSite({
      routes: {
        '/good.mmdb.gz': { body: gzipSync(good) },
        '/corrupt.mmdb.gz': { body: gzipSync(corrupt) },
        '/gone.mmdb.gz': { status: 404, body: 'not found' },
      },
    });
  });
  afterAll(async () => {
    await site.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('installs a verified download, serves it first, and keeps it when a later download is corrupt', async () => {
    const update = io();
    expect(
      await main(['geo', 'update', '--source', 'dbip-lite', '--url', `${site.url}/good.mmdb.gz`], update),
    ).toBe(EXIT.ok);
    expect(update.out()).toContain('installed GeoIP2-City');
    const json = io();
    expect(
      await main(
        ['geo', 'update', '--json', '--source', 'dbip-lite', '--url', `${site.url}/good.mmdb.gz`],
        json,
      ),
    ).toBe(EXIT.ok);
    const report = JSON.parse(json.out());
    expect(report).toEqual({
      source: 'dbip-lite',
      database_type: 'GeoIP2-City',
      built_at: expect.stringMatching(ISO_8601),
      path: installedCityPath(join(dataDir, 'geo'), 'dbip-lite'),
    });
    expectApiJson(report);
    const installed = await readFile(installedCityPath(join(dataDir, 'geo'), 'dbip-lite'));

    const lookup = io();
    expect(await main(['geo', '81.2.69.142', '--json'], lookup)).toBe(EXIT.ok);
    // London comes from the installed test database (the bundled DB-IP data says otherwise).
    expect(JSON.parse(lookup.out())).toMatchObject({ city: 'London', sources: { city: 'dbip-lite-city' } });

    const broken = io();
    expect(
      await main(['geo', 'update', '--source', 'dbip-lite', '--url', `${site.url}/corrupt.mmdb.gz`], broken),
    ).toBe(EXIT.failure);
    expect(broken.err()).toMatch(/was not installed: .*(corrupt|reachable)/);
    const missing = io();
    expect(
      await main(['geo', 'update', '--source', 'dbip-lite', '--url', `${site.url}/gone.mmdb.gz`], missing),
    ).toBe(EXIT.failure);
    expect(missing.err()).toContain('answered HTTP 404');
    expect((await readFile(installedCityPath(join(dataDir, 'geo'), 'dbip-lite'))).equals(installed)).toBe(
      true,
    );
  }, 120_000);

  it.each([
    [['geo', 'update'], '--source must be one of dbip-lite, geolite2'],
    [['geo', 'update', '--source', 'geolite2'], 'geolite2 needs --license-key'],
    [['geo', 'update', 'now', '--source', 'dbip-lite'], 'unexpected arguments after update: now'],
  ])('bad usage %j exits 2', async (argv, message) => {
    const captured = io();
    expect(await main(argv, captured)).toBe(EXIT.usage);
    expect(captured.err()).toContain(message);
  });
});
