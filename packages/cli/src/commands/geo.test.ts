import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../exit-codes.js';
import { main } from '../main.js';
import { captureIo } from '../testing/capture-io.js';

const fixtures = fileURLToPath(
  new URL('../../../../../shared/fixtures/maxmind-db/test-data/', import.meta.url),
);
const dbs = ['--db', `${fixtures}GeoIP2-City-Test.mmdb`, '--db', `${fixtures}GeoLite2-ASN-Test.mmdb`];

describe('svc geo with MaxMind test databases (--db)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-geo-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('prints one result as the API object with --json', async () => {
    const io = captureIo();
    expect(await main(['geo', '81.2.69.142', '--json', ...dbs], io)).toBe(EXIT.ok);
    expect(JSON.parse(io.out())).toMatchObject({
      ip: '81.2.69.142',
      country: 'GB',
      city: 'London',
      timezone: 'Europe/London',
    });
  });

  it('prints a table and exits 1 when an address is invalid, naming the rule', async () => {
    const io = captureIo();
    expect(await main(['geo', '81.2.69.142', '10.0.0.1', ...dbs], io)).toBe(EXIT.failure);
    expect(io.out()).toMatch(/81\.2\.69\.142\s+GB\s+England\s+London/);
    expect(io.out()).toContain('error: 10.0.0.1 is in 10.0.0.0/8, private-use (RFC 1918)');
  });

  it('reads a file and writes NDJSON and CSV with a summary on stderr', async () => {
    const input = join(dir, 'ips.txt');
    await writeFile(input, '# test\n81.2.69.142\n1.128.0.0\n\n010.0.0.1\n');
    const ndjson = join(dir, 'out.ndjson');
    const io = captureIo();
    expect(await main(['geo', '--file', input, '--out', ndjson, ...dbs], io)).toBe(EXIT.failure);
    const lines = (await readFile(ndjson, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => line.ip)).toEqual(['81.2.69.142', '1.128.0.0', '010.0.0.1']);
    expect(lines[1]).toMatchObject({ asn: 1221, org: 'Telstra Pty Ltd' });
    expect(lines[2].error.code).toBe('invalid_ip');
    expect(io.err()).toContain('geo: 2 located, 1 invalid');
    const csv = join(dir, 'out.csv');
    expect(await main(['geo', '--file', input, '--out', csv, ...dbs], captureIo())).toBe(EXIT.failure);
    const rows = (await readFile(csv, 'utf8')).trim().split('\n');
    expect(rows[0]?.split(',').slice(0, 3)).toEqual(['ip', 'continent', 'country']);
    expect(rows).toHaveLength(4);
  });

  it.each([
    [['geo'], 'give at least one IP address or --file'],
    [['geo', '1.1.1.1', '--file', 'x.txt'], 'give addresses or --file, not both'],
    [['geo', '1.1.1.1', '--out', 'x.csv'], '--out needs --file'],
  ])('bad usage %j exits 2', async (argv, message) => {
    const io = captureIo();
    expect(await main(argv, io)).toBe(EXIT.usage);
    expect(io.err()).toContain(message);
  });

  it('reports a missing input file and a bad --out extension', async () => {
    const missing = captureIo();
    expect(await main(['geo', '--file', join(dir, 'nope.txt'), ...dbs], missing)).toBe(EXIT.failure);
    expect(missing.err()).toContain('no such file');
    const input = join(dir, 'one.txt');
    await writeFile(input, '8.8.8.8\n');
    const badOut = captureIo();
    expect(await main(['geo', '--file', input, '--out', join(dir, 'x.xml'), ...dbs], badOut)).toBe(
      EXIT.usage,
    );
    expect(badOut.err()).toContain('--out must end in .ndjson, .jsonl or .csv');
  });

  it('prints the data attribution with --sources', async () => {
    const io = captureIo();
    expect(await main(['geo', '--sources'], io)).toBe(EXIT.ok);
    expect(io.out()).toContain('IP Geolocation by DB-IP');
  });
});
