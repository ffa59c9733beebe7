import { existsSync } from 'node:fs';
import {
  createGeoResolver,
  defaultDataFiles,
  type GeoBackend,
  type GeoResolver,
  loadAsnNetworkTypes,
  type MmdbSchema,
  type NetworkType,
  openDefaultBackends,
  openMmdbBackend,
  withGeofeed,
} from '@svc/geo-resolver';
import { geoDir } from './data-dir.js';
import { installedCityPath, UPDATE_SOURCES } from './geo-update.js';
import type { CliIo } from './io.js';

/**
 * The resolver `svc geo` uses: the user's own .mmdb files when given (--db, in priority order,
 * read with `schema` when given, else with the schema their database_type names), else the
 * openly licensed default data installed with the CLI, with the network lists (Tor exits, cloud
 * ranges, iCloud Private Relay; the fresher copy of `svc geo update --lists` when there is one).
 * A geofeed backend (--geofeed) goes before them all and keeps their locations from mixing with it.
 * `geoData`: the geo folder of the data dir (`svc serve` passes its own data dir's).
 */
export async function openCliGeoResolver(
  io: CliIo,
  databases: string[],
  schema?: MmdbSchema,
  geofeed?: GeoBackend,
  geoData: string = geoDir(io),
): Promise<GeoResolver> {
  let backends: GeoBackend[];
  let asnNetworkTypes: ReadonlyMap<number, NetworkType> | undefined;
  if (databases.length > 0) {
    backends = await Promise.all(
      databases.map((path) => openMmdbBackend(schema ? { source: path, schema } : { source: path })),
    );
  } else {
    // The data packages are dependencies of this CLI, so they are looked up from here: from
    // @svc/geo-resolver's folder a global npm install cannot see them.
    backends = await openDefaultBackends({
      ...defaultDataFiles(import.meta.url),
      cacheDir: geoData,
      onProgress: (message) => io.stderr.write(`svc: ${message}\n`),
    });
    // Data installed by `svc geo update` comes first; the bundled data fills what it lacks.
    const installed = UPDATE_SOURCES.map((source) => installedCityPath(geoData, source)).filter((path) =>
      existsSync(path),
    );
    const fresher = await Promise.all(
      installed.map((path) =>
        openMmdbBackend({ source: path, verify: 'none', id: path.split('/').pop()?.replace('.mmdb', '') }),
      ),
    );
    backends = [...fresher, ...backends];
    // The network type of an address's AS where no list names the address.
    asnNetworkTypes = await loadAsnNetworkTypes();
  }
  if (geofeed) backends = withGeofeed(geofeed, backends);
  return createGeoResolver({ backends, ...(asnNetworkTypes ? { asnNetworkTypes } : {}) });
}
