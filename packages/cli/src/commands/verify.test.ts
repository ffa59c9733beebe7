import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FakeDnsServer, type SmtpFleet, startDnsServer, startSmtpFleet } from '@svc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../exit-codes.js';
import { main } from '../main.js';
import { captureIo } from '../testing/capture-io.js';
import { fleetFlags } from '../testing/fleet-flags.js';

let dns: FakeDnsServer;
let fleet: SmtpFleet;
let dir: string;
const flags = () => fleetFlags(dns, fleet);

beforeAll(async () => {
  dns = await startDnsServer({
    zones: {
      // The resolver health check's canary (--dns-canary).
      'canary.test': { A: ['192.0.2.1'] },
      'good.test': { MX: [{ priority: 10, exchange: 'mx.good.test' }] },
      'mx.good.test': { A: ['127.0.0.2'] },
      'nullmx.test': { MX: [{ priority: 0, exchange: '.' }] },
      // Host names as Google and Proofpoint document them (email-verifier's provider registry).
      'workspace.test': { MX: [{ priority: 1, exchange: 'aspmx.l.google.com' }] },
      'filtered.test': {
        MX: [
          { priority: 10, exchange: 'mx0a-0012.pphosted.com' },
          { priority: 20, exchange: 'alt1.aspmx.l.google.com' },
        ],
      },
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

  it('writes a CSV whose header fits every row (a first row without SMTP details hides none)', async () => {
    const input = join(dir, 'mixed.txt');
    await writeFile(input, 'bob@nullmx.test\nalice@good.test\n');
    const out = join(dir, 'mixed.csv');
    expect(await main(['verify', '--file', input, '--out', out, '--probe', ...flags()], captureIo())).toBe(
      EXIT.failure,
    );
    const [header, bob, alice] = (await readFile(out, 'utf8')).trim().split('\n');
    const columns = header?.split(',') ?? [];
    expect(columns).toContain('smtp.code');
    expect(columns).not.toContain('smtp');
    const cell = (row: string | undefined, name: string) => (row ?? '').split(',')[columns.indexOf(name)];
    expect([cell(bob, 'state'), cell(bob, 'smtp.code')]).toEqual(['undeliverable', '']);
    expect([cell(alice, 'state'), cell(alice, 'smtp.code')]).toEqual(['deliverable', '250']);
  });

  it('names the mail provider and gateway in the table and the CSV', async () => {
    const io = captureIo();
    expect(await main(['verify', 'a@workspace.test', 'b@filtered.test', ...flags()], io)).toBe(EXIT.ok);
    expect(io.out()).toMatch(/^email\s+state\s+score\s+mx\s+provider\s+reasons/);
    expect(io.out()).toMatch(/a@workspace\.test\s+deliverable\s+\S+\s+aspmx\.l\.google\.com\s+google\s/);
    expect(io.out()).toMatch(
      /b@filtered\.test\s+deliverable\s+\S+\s+mx0a-0012\.pphosted\.com\s+google via proofpoint\s/,
    );

    const input = join(dir, 'providers.txt');
    await writeFile(input, 'a@workspace.test\nb@filtered.test\n');
    const out = join(dir, 'providers.csv');
    expect(await main(['verify', '--file', input, '--out', out, ...flags()], captureIo())).toBe(EXIT.ok);
    const [header, a, b] = (await readFile(out, 'utf8')).trim().split('\n');
    const columns = header?.split(',') ?? [];
    const cell = (row: string | undefined, name: string) => (row ?? '').split(',')[columns.indexOf(name)];
    expect([cell(a, 'mx.provider'), cell(a, 'mx.gateway')]).toEqual(['google', '']);
    expect([cell(b, 'mx.provider'), cell(b, 'mx.gateway')]).toEqual(['google', 'proofpoint']);
  });

  it('checks --out before verifying anything, and refuses an over-long list in its own words', async () => {
    const input = join(dir, 'two.txt');
    await writeFile(input, 'alice@good.test\nbob@good.test\n');
    const sessions = fleet.sessions.length;
    const io = captureIo();
    expect(
      await main(['verify', '--file', input, '--out', '/missing/dir/r.ndjson', '--probe', ...flags()], io),
    ).toBe(EXIT.failure);
    expect(io.err()).toBe(
      'svc: cannot write /missing/dir/r.ndjson: the folder /missing/dir does not exist\n',
    );
    expect(fleet.sessions.length).toBe(sessions);

    const long = join(dir, 'long.txt');
    await writeFile(long, Array.from({ length: 10_001 }, (_, index) => `user${index}@good.test`).join('\n'));
    const tooMany = captureIo();
    expect(await main(['verify', '--file', long, ...flags()], tooMany)).toBe(EXIT.usage);
    expect(tooMany.err()).toContain(
      `svc: ${long} has 10,001 addresses; svc verify takes at most 10,000 (use svc batch run --type verify_email for up to 50,000)\n`,
    );
  });

  it.each([
    ['NXDOMAIN', { '*': 'NXDOMAIN' }],
    ['SERVFAIL', { '*': 'SERVFAIL' }],
    ['no answer', { '*': 'NO_ANSWER' }],
  ] as const)(
    'through a resolver answering %s for every name: rows unknown / dns_unavailable, said on stderr, exit 1',
    async (denial, zones) => {
      const lying = await startDnsServer({ zones });
      try {
        const input = join(dir, 'lying.txt');
        await writeFile(input, 'a@gmail.com\nb@yahoo.com\nnope\n');
        const out = join(dir, 'lying.csv');
        const io = captureIo();
        // The default canaries (iana.org, ietf.org, icann.org), as a user without --dns-canary has.
        const argv = ['verify', '--file', input, '--out', out, '--dns', lying.address];
        expect(await main(argv, io)).toBe(EXIT.failure);
        const [header, ...rows] = (await readFile(out, 'utf8')).trim().split('\n');
        const columns = header?.split(',') ?? [];
        const cell = (row: string | undefined, name: string) => (row ?? '').split(',')[columns.indexOf(name)];
        expect(rows.map((row) => [cell(row, 'state'), cell(row, 'reasons')])).toEqual([
          ['unknown', 'dns_unavailable;free_provider'],
          ['unknown', 'dns_unavailable;free_provider'],
          ['undeliverable', 'invalid_syntax'],
        ]);
        expect(io.err()).toContain(
          'verify: 3 addresses: 0 deliverable, 1 undeliverable, 0 risky, 2 unknown (2 not verified: the DNS resolver failed its canary check)\n',
        );
        expect(io.err()).toContain(
          `svc: 2 of 3 addresses were not verified (unknown, dns_unavailable): the DNS resolver ${lying.address} denies names that exist (${denial} for iana.org, ${denial} for ietf.org, ${denial} for icann.org), so its negative answers cannot be believed. No domain was called non-existent.`,
        );
        // Only the canaries were asked: no domain was looked up through it.
        expect(new Set(lying.queries.map((query) => query.name))).toEqual(
          new Set(['iana.org', 'ietf.org', 'icann.org']),
        );
      } finally {
        await lying.close();
      }
    },
  );

  it('says on stderr when DNS failed for every address through a resolver that resolves its canaries, with the --dns hint', async () => {
    const canary = { 'canary.test': { A: ['192.0.2.1'] } } as const;
    const failing = await startDnsServer({
      zones: { ...canary, 'a.test': 'SERVFAIL', 'b.test': 'SERVFAIL' },
    });
    const empty = await startDnsServer({ zones: canary }); // every other name: NXDOMAIN
    const checked = ['--dns-canary', 'canary.test'];
    try {
      const unanswered = captureIo();
      expect(
        await main(['verify', 'x@a.test', 'y@b.test', '--dns', failing.address, ...checked], unanswered),
      ).toBe(EXIT.failure);
      expect(unanswered.out()).toMatch(/x@a\.test\s+unknown.*dns_error/);
      expect(unanswered.err()).toBe(
        'svc: no DNS answer for any of 2 addresses (the resolver is unreachable or failing); check the network or the resolver, or ask another DNS server with --dns host:port\n',
      );
      const json = captureIo();
      expect(await main(['verify', 'x@a.test', '--json', '--dns', failing.address, ...checked], json)).toBe(
        EXIT.failure,
      );
      expect(JSON.parse(json.out())).toMatchObject({ email: 'x@a.test', state: 'unknown' });
      expect(JSON.parse(json.err())).toMatchObject({ error: { code: 'upstream_timeout' } });

      const missing = captureIo();
      expect(
        await main(
          ['verify', 'x@one.test', 'y@two.test', 'nope', '--dns', empty.address, ...checked],
          missing,
        ),
      ).toBe(EXIT.failure);
      expect(missing.err()).toContain('svc: DNS says none of the 2 domains exists;');
      expect(missing.err()).toContain('--dns host:port');

      // One unknown domain, or one among domains that resolve, is an ordinary result.
      for (const emails of [['x@one.test'], ['alice@good.test', 'x@one.test']]) {
        const ordinary = captureIo();
        const server = emails.length === 1 ? empty.address : dns.address;
        expect(await main(['verify', ...emails, '--dns', server, ...checked], ordinary)).toBe(EXIT.failure);
        expect(ordinary.err()).toBe('');
      }
    } finally {
      await failing.close();
      await empty.close();
    }
  });

  it('runs a verify_email batch job with the same verifier flags', async () => {
    const input = join(dir, 'batch.txt');
    await writeFile(input, 'alice@good.test\nbob@nullmx.test\n');
    const out = join(dir, 'batch.ndjson');
    const sessions = fleet.sessions.length;
    const io = captureIo();
    const argv = ['batch', 'run', '--type', 'verify_email', '--file', input, '--db', join(dir, 'jobs.db')];
    expect(await main([...argv, '--out', out, '--probe', ...flags()], io)).toBe(EXIT.ok);
    const lines = (await readFile(out, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => [line.input, line.result.state, line.result.smtp?.code ?? null])).toEqual([
      ['alice@good.test', 'deliverable', 250],
      ['bob@nullmx.test', 'undeliverable', null],
    ]);
    expect(fleet.sessions.length).toBeGreaterThan(sessions);
    const bad = captureIo();
    expect(await main([...argv, '--helo', 'bad name'], bad)).toBe(EXIT.usage);
    expect(bad.err()).toContain('svc: --helo must be a host name');
    expect(bad.err()).toContain('svc batch run');
  });

  it.each([
    [['verify'], 'give at least one email address or --file'],
    [['verify', 'a@b.test', '--out', 'x.csv'], '--out needs --file'],
    [['verify', 'a@b.test', '--smtp-port', 'abc'], '--smtp-port must be a port number, got "abc"'],
    [['verify', 'a@b.test', '--dns', 'nowhere'], '--dns: server must be "host:port"'],
    [['verify', 'a@b.test', '--helo', 'bad name'], '--helo must be a host name'],
    [['verify', 'a@b.test', '--dns-canary', 'not a name'], '--dns-canary: "not a name" is not a host name'],
    [['verify', 'a@b.test', '--frobnicate'], 'svc: unknown option --frobnicate'],
  ])('bad usage %j exits 2 with a clear message', async (argv, message) => {
    const io = captureIo();
    expect(await main(argv, io)).toBe(EXIT.usage);
    expect(io.err()).toContain(message);
  });
});
