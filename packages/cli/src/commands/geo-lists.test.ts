import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type StaticSite, startStaticSite } from '@svc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../exit-codes.js';
import { main } from '../main.js';
import { captureIo } from '../testing/capture-io.js';

// The default data, no configuration: a Tor exit, an AWS address, an iCloud Private Relay egress
// and a Comcast address from the shipped snapshots and ASN table.
describe('svc geo flags and lists', () => {
  let dataDir: string;
  let site: StaticSite;
  const io = () => {
    const captured = captureIo();
    captured.env.SVC_DATA_DIR = dataDir;
    return captured;
  };
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'svc-geo-lists-'));
    const snapshot = await readFile(
      new URL('../../../geo-resolver/data/network-lists/tor-exits.txt', import.meta.url),
      'utf8',
    );
    site = await startStaticSite({
      routes: {
        '/torbulkexitlist': { body: `${snapshot}203.0.114.9\n`, headers: { 'content-type': 'text/plain' } },
        '/empty': { body: '', headers: { 'content-type': 'text/plain' } },
      },
    });
  });
  afterAll(async () => {
    await site.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('answers is_tor, is_hosting, is_relay and network_type with the bundled data', async () => {
    const run = io();
    expect(await main(['geo', '185.220.101.33', '3.5.0.10', '172.225.0.5', '73.22.1.5', '--json'], run)).toBe(
      EXIT.ok,
    );
    const [tor, aws, relay, comcast] = JSON.parse(run.out());
    expect(tor).toMatchObject({
      is_tor: true,
      is_proxy: true,
      is_vpn: false,
      sources: { is_tor: 'tor-exits' },
    });
    expect(aws).toMatchObject({ is_hosting: true, network_type: 'hosting', is_vpn: false, is_proxy: false });
    expect(aws.sources).toMatchObject({ is_hosting: 'aws' });
    expect(relay).toMatchObject({
      is_relay: true,
      is_vpn: false,
      sources: { is_relay: 'icloud-private-relay' },
    });
    expect(comcast).toMatchObject({ network_type: 'isp', is_hosting: false, is_tor: false, is_relay: false });
    const table = io();
    expect(await main(['geo', '185.220.101.33', '172.225.0.5', '73.22.1.5'], table)).toBe(EXIT.ok);
    expect(table.out()).toMatch(/185\.220\.101\.33 .* proxy tor/);
    expect(table.out()).toMatch(/172\.225\.0\.5 .*relay/);
    expect(table.out()).toMatch(/73\.22\.1\.5 .* isp/);
  }, 180_000);

  it('lists every dataset with its version, licence and attribution (--sources)', async () => {
    const run = io();
    expect(await main(['geo', '--sources', '--json'], run)).toBe(EXIT.ok);
    const { datasets } = JSON.parse(run.out());
    expect(datasets.map((dataset: { id: string }) => dataset.id)).toEqual(
      expect.arrayContaining([
        'dbip-city-lite',
        'ip-location-db-asn',
        'tor-exits',
        'aws',
        'icloud-private-relay',
        'asn-network-types',
      ]),
    );
    for (const dataset of datasets) {
      expect(dataset.version, dataset.id).toBeTruthy();
      expect(dataset.licence, dataset.id).toBeTruthy();
    }
    const text = io();
    expect(await main(['geo', '--sources'], text)).toBe(EXIT.ok);
    expect(text.out()).toContain('attribution: IP Geolocation by DB-IP (https://db-ip.com)');
  });

  it('update --lists refuses a loopback URL unless allowed, keeps data on a bad file, and installs a good one', async () => {
    const refused = io();
    expect(
      await main(
        ['geo', 'update', '--lists', '--list-url', `tor-exits=${site.url}/torbulkexitlist`],
        refused,
      ),
    ).toBe(EXIT.failure);
    expect(refused.out()).toMatch(/tor-exits: kept the previous \d+ networks: .*private or reserved/);

    const empty = io();
    expect(
      await main(
        ['geo', 'update', '--lists', '--allow-private-list-url', '--list-url', `tor-exits=${site.url}/empty`],
        empty,
      ),
    ).toBe(EXIT.failure);
    expect(empty.out()).toContain('empty body');

    const good = io();
    expect(
      await main(
        [
          'geo',
          'update',
          '--lists',
          '--json',
          '--allow-private-list-url',
          '--list-url',
          `tor-exits=${site.url}/torbulkexitlist`,
        ],
        good,
      ),
    ).toBe(EXIT.ok);
    expect(JSON.parse(good.out())).toMatchObject({
      changed: true,
      lists: [{ id: 'tor-exits', status: 'updated' }],
    });
    const lookup = io();
    expect(await main(['geo', '203.0.114.9', '--json'], lookup)).toBe(EXIT.ok);
    expect(JSON.parse(lookup.out())).toMatchObject({ is_tor: true });
    const listed = io();
    expect(await main(['geo', '--sources', '--json'], listed)).toBe(EXIT.ok);
    const tor = JSON.parse(listed.out()).datasets.find(
      (dataset: { id: string }) => dataset.id === 'tor-exits',
    );
    expect(tor.version).toMatch(/^\d{4}-\d\d-\d\dT/);
  }, 120_000);

  it('rejects a --list-url for a list that does not exist', async () => {
    const run = io();
    expect(await main(['geo', 'update', '--lists', '--list-url', 'nope=http://example.com/x'], run)).toBe(
      EXIT.usage,
    );
    expect(run.err()).toContain('--list-url takes ID=URL');
  });
});
