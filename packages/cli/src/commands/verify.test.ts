import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FakeDnsServer, type SmtpFleet, startDnsServer, startSmtpFleet } from '@svc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../exit-codes.js';
import { main } from '../main.js';
import { captureIo } from '../testing/capture-io.js';

let dns: FakeDnsServer;
let fleet: SmtpFleet;
let dir: string;
const flags = () => [
  '--dns',
  dns.address,
  '--smtp-port',
  String(fleet.port),
  '--helo',
  'cli.test',
  '--allow-private-mx',
];

beforeAll(async () => {
  dns = await startDnsServer({
    zones: {
      'good.test': { MX: [{ priority: 10, exchange: 'mx.good.test' }] },
      'mx.good.test': { A: ['127.0.0.2'] },
      'nullmx.test': { MX: [{ priority: 0, exchange: '.' }] },
    },
  });
  fleet = await startSmtpFleet({
    hosts: ['127.0.0.2'],
    script: { mailboxes: { 'alice@good.test': 'accept' } },
  });
  dir = await mkdtemp(join(tmpdir(), 'svc-verify-'));
});
afterAll(async () => {
  await fleet.close();
  await dns.close();
  await rm(dir, { recursive: true, force: true });
});

describe('svc verify', () => {
  it('prints one result as the API object with --json, probing when asked', async () => {
    const io = captureIo();
    expect(await main(['verify', 'alice@good.test', '--probe', '--json', ...flags()], io)).toBe(EXIT.ok);
    expect(JSON.parse(io.out())).toMatchObject({
      email: 'alice@good.test',
      state: 'deliverable',
      smtp: { code: 250 },
    });
    expect(fleet.sessions.length).toBeGreaterThan(0);
  });

  it('prints a table and exits 1 when an address is undeliverable', async () => {
    const io = captureIo();
    expect(await main(['verify', 'alice@good.test', 'bob@nullmx.test', 'nope', ...flags()], io)).toBe(
      EXIT.failure,
    );
    expect(io.out()).toMatch(/alice@good\.test\s+deliverable/);
    expect(io.out()).toMatch(/bob@nullmx\.test\s+undeliverable.*null_mx/);
    expect(io.out()).toMatch(/nope\s+undeliverable.*invalid_syntax/);
  });

  it('reads a CSV file, writes NDJSON and prints a summary by state', async () => {
    const input = join(dir, 'list.csv');
    await writeFile(input, 'email,name\nalice@good.test,Alice\n"bob@nullmx.test",Bob\n');
    const out = join(dir, 'out.ndjson');
    const io = captureIo();
    expect(await main(['verify', '--file', input, '--out', out, '--probe', ...flags()], io)).toBe(
      EXIT.failure,
    );
    const lines = (await readFile(out, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => [line.email, line.state])).toEqual([
      ['alice@good.test', 'deliverable'],
      ['bob@nullmx.test', 'undeliverable'],
    ]);
    expect(io.err()).toContain('verify: 2 addresses: 1 deliverable, 1 undeliverable, 0 risky, 0 unknown');
    expect(io.out()).toBe('');
  });

  it.each([
    [['verify'], 'give at least one email address or --file'],
    [['verify', 'a@b.test', '--out', 'x.csv'], '--out needs --file'],
    [['verify', 'a@b.test', '--smtp-port', 'abc'], '--smtp-port must be a port number, got "abc"'],
    [['verify', 'a@b.test', '--dns', 'nowhere'], '--dns: server must be "host:port"'],
    [['verify', 'a@b.test', '--helo', 'bad name'], '--helo must be a host name'],
    [['verify', 'a@b.test', '--frobnicate'], "Unknown option '--frobnicate'"],
  ])('bad usage %j exits 2 with a clear message', async (argv, message) => {
    const io = captureIo();
    expect(await main(argv, io)).toBe(EXIT.usage);
    expect(io.err()).toContain(message);
  });
});
