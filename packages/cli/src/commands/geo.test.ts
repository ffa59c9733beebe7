import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sharedTempDir } from '@svc/testkit/vitest';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../exit-codes.js';
import { main } from '../main.js';
import { asAnotherUser } from '../testing/as-another-user.js';
import { captureIo } from '../testing/capture-io.js';

const fixtures = fileURLToPath(new URL('../../../../fixtures/maxmind-db/test-data/', import.meta.url));
const dbs = ['--db', `${fixtures}GeoIP2-City-Test.mmdb`, '--db', `${fixtures}GeoLite2-ASN-Test.mmdb`];

describe('svc geo with MaxMind test databases (--db)', () => {
  const dir = sharedTempDir('svc-geo-');

  it('prints one result as the API object with --json', async () => {
    const io = captureIo();
    expect(await main(['geo', '81.2.69.142', '--json', ...dbs], io)).toBe(EXIT.ok);
    expect(JSON.parse(io.out())).toMatchObject({
      ip: '81.2.69.142',
      country: 'GB',
      city: 'London',
      timezone: 'Europe/London',
      // MaxMind's City test record for this network has a 10 km radius (source-data/GeoIP2-City-Test.json).
      accuracy_radius_km: 10,
    });
  });

  it('prints a table and exits 1 when an address is invalid, naming the rule', async () => {
    const io = captureIo();
    expect(await main(['geo', '81.2.69.142', '10.0.0.1', ...dbs], io)).toBe(EXIT.failure);
    expect(io.out()).toMatch(/81\.2\.69\.142\s+GB\s+England\s+London/);
    expect(io.out()).toMatch(/51\.5142,-0\.0931 ±10 km/);
    expect(io.out()).toContain('error: 10.0.0.1 is in 10.0.0.0/8, private-use (RFC 1918)');
  });

  it('reads a file and writes NDJSON and CSV with a summary on stderr', async () => {
    const input = join(dir(), 'ips.txt');
    await writeFile(input, '# test\n81.2.69.142\n1.128.0.0\n\n010.0.0.1\n');
    const ndjson = join(dir(), 'out.ndjson');
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
    const csv = join(dir(), 'out.csv');
    expect(await main(['geo', '--file', input, '--out', csv, ...dbs], captureIo())).toBe(EXIT.failure);
    const rows = (await readFile(csv, 'utf8')).trim().split('\n');
    expect(rows[0]?.split(',').slice(0, 5)).toEqual([
      'ip',
      'error_code',
      'error_message',
      'continent',
      'country',
    ]);
    expect(rows).toHaveLength(4);
  });

  it("keeps each address's error in the CSV, even when the first address fails", async () => {
    const input = join(dir(), 'bad-first.txt');
    await writeFile(input, '10.0.0.1\n81.2.69.142\nnot-an-ip\n');
    const csv = join(dir(), 'bad-first.csv');
    expect(await main(['geo', '--file', input, '--out', csv, ...dbs], captureIo())).toBe(EXIT.failure);
    const [header, ...rows] = (await readFile(csv, 'utf8')).trim().split('\n');
    const columns = header?.split(',') ?? [];
    expect(columns.slice(0, 4)).toEqual(['ip', 'error_code', 'error_message', 'continent']);
    const cell = (row: string | undefined, name: string) => (row ?? '').split(',')[columns.indexOf(name)];
    expect(rows.map((row) => [cell(row, 'ip'), cell(row, 'error_code'), cell(row, 'country')])).toEqual([
      ['10.0.0.1', 'invalid_ip', ''],
      ['81.2.69.142', '', 'GB'],
      ['not-an-ip', 'invalid_ip', ''],
    ]);
    expect(rows[0]).toContain('10.0.0.1 is in 10.0.0.0/8');
  });

  it('checks --out before any work: a missing folder or a directory fails at once with the path', async () => {
    const input = join(dir(), 'one-out.txt');
    await writeFile(input, '8.8.8.8\n');
    const missing = captureIo();
    const dataDir = join(dir(), 'untouched-data');
    missing.env.SVC_DATA_DIR = dataDir;
    // No --db: a check after the work would first prepare the default data in the data dir.
    expect(await main(['geo', '--file', input, '--out', '/missing/dir/x.csv'], missing)).toBe(EXIT.failure);
    expect(missing.err()).toBe(
      'svc: cannot write /missing/dir/x.csv: the folder /missing/dir does not exist\n',
    );
    expect(existsSync(dataDir), 'no geo data was prepared before the check').toBe(false);
    const into = join(dir(), 'a-dir.csv');
    await mkdir(into);
    const directory = captureIo();
    expect(await main(['geo', '--file', input, '--out', into, '--json', ...dbs], directory)).toBe(
      EXIT.failure,
    );
    expect(JSON.parse(directory.err())).toEqual({
      error: { code: 'invalid_request', message: `cannot write ${into}: is a directory (EISDIR)` },
    });
    expect(directory.out()).toBe('');
  });

  it('writes result files readable by the owner only, whatever the umask', async () => {
    const input = join(dir(), 'private.txt');
    await writeFile(input, '81.2.69.142\n');
    const fresh = join(dir(), 'private.ndjson');
    const existing = join(dir(), 'existing.csv');
    await writeFile(existing, 'old\n', { mode: 0o644 });
    const umask = process.umask(0);
    try {
      for (const out of [fresh, existing])
        expect(await main(['geo', '--file', input, '--out', out, ...dbs], captureIo())).toBe(EXIT.ok);
    } finally {
      process.umask(umask);
    }
    expect((await stat(fresh)).mode & 0o777).toBe(0o600);
    expect((await stat(existing)).mode & 0o777).toBe(0o600);
    expect(await readFile(existing, 'utf8')).toContain('81.2.69.142');
  });

  it('names the real cause of a bad --db or --file: no such file, a directory, not a database', async () => {
    const text = join(dir(), 'text.mmdb');
    await writeFile(text, 'not a MaxMind file\n');
    const cases: Array<[string[], string]> = [
      [
        ['8.8.8.8', '--db', join(dir(), 'nope.mmdb')],
        `cannot read ${join(dir(), 'nope.mmdb')}: no such file or directory (ENOENT)`,
      ],
      [['8.8.8.8', '--db', dir()], `cannot read ${dir()}: is a directory (EISDIR)`],
      [['8.8.8.8', '--db', text], `${text} is not a valid MaxMind DB file`],
      [['--file', dir(), ...dbs], `cannot read ${dir()}: is a directory (EISDIR)`],
    ];
    for (const [argv, message] of cases) {
      const io = captureIo();
      expect(await main(['geo', ...argv], io)).toBe(EXIT.failure);
      expect(io.err()).toContain(message);
    }
  });

  it('says permission denied for an unreadable --file or --db and an unwritable --out folder', async () => {
    await chmod(dir(), 0o755);
    const secret = join(dir(), 'secret.txt');
    await writeFile(secret, '8.8.8.8\n', { mode: 0o600 });
    const locked = join(dir(), 'locked');
    await mkdir(locked, { mode: 0o755 });
    const readable = join(dir(), 'readable.txt');
    await writeFile(readable, '8.8.8.8\n', { mode: 0o644 });
    const runs = await asAnotherUser(async () => {
      const file = captureIo();
      const db = captureIo();
      const out = captureIo();
      return [
        [await main(['geo', '--file', secret, ...dbs], file), file.err()],
        [await main(['geo', '8.8.8.8', '--db', secret], db), db.err()],
        [await main(['geo', '--file', readable, '--out', join(locked, 'x.csv'), ...dbs], out), out.err()],
      ];
    });
    expect(runs).toEqual([
      [EXIT.failure, `svc: cannot read ${secret}: permission denied (EACCES)\n`],
      [EXIT.failure, `svc: cannot read ${secret}: permission denied (EACCES)\n`],
      [EXIT.failure, `svc: cannot write ${join(locked, 'x.csv')}: permission denied (EACCES)\n`],
    ]);
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
    expect(await main(['geo', '--file', join(dir(), 'nope.txt'), ...dbs], missing)).toBe(EXIT.failure);
    expect(missing.err()).toContain('no such file');
    const input = join(dir(), 'one.txt');
    await writeFile(input, '8.8.8.8\n');
    const badOut = captureIo();
    expect(await main(['geo', '--file', input, '--out', join(dir(), 'x.xml'), ...dbs], badOut)).toBe(
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
