import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  closedPort,
  type FakeDnsServer,
  type SmtpFleet,
  startDnsServer,
  startSmtpServer,
} from '@svc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../exit-codes.js';
import { main } from '../main.js';
import { captureIo } from '../testing/capture-io.js';

let dns: FakeDnsServer;
let mta: SmtpFleet;

beforeAll(async () => {
  dns = await startDnsServer({
    zones: {
      'signed.test': { A: ['127.0.0.2'], authenticated: true },
      '5.113.0.203.in-addr.arpa': { PTR: ['probe.example.test'] },
      'probe.example.test': { A: ['203.0.113.5'], TXT: ['v=spf1 ip4:203.0.113.5 -all'] },
      'example.test': {
        MX: [{ priority: 10, exchange: 'mx.example.test' }],
        TXT: ['v=spf1 ip4:203.0.113.5 -all'],
      },
      '5.113.0.203.listed.bl.test': { A: ['127.0.0.2'], TXT: ['Listed: see https://bl.test/203.0.113.5'] },
      '2.0.0.127.clean.bl.test': { A: ['127.0.0.2'] },
    },
  });
  mta = await startSmtpServer({ script: { ehloGreeting: 'mx.test Hello {helo} [{client}]' } });
});
afterAll(async () => {
  await Promise.all([dns.close(), mta.close()]);
});

const flags = (port: number) => [
  '--helo',
  'probe.example.test',
  '--from',
  'bounce@example.test',
  '--public-address',
  '203.0.113.5',
  '--test-host',
  '127.0.0.1',
  '--smtp-port',
  String(port),
  '--dns',
  dns.address,
  '--dnssec-name',
  'signed.test',
  '--timeout',
  '2000',
];

describe('svc doctor', () => {
  it('--json prints the report; exit 0 when nothing failed', async () => {
    const io = captureIo();
    const code = await main(['doctor', '--json', ...flags(mta.port), '--blocklist', 'clean.bl.test'], io);
    const report = JSON.parse(io.out());
    expect(code).toBe(EXIT.ok);
    expect(report.status).toBe('warning'); // configured 203.0.113.5, but the MTA saw 127.0.0.1
    expect(report.checks.map((check: { id: string }) => check.id)).toEqual([
      'dns_resolver',
      'outbound_smtp',
      'public_address',
      'reverse_dns',
      'sender_domain',
      'blocklist:clean.bl.test',
    ]);
    expect(report.checks[2]).toMatchObject({ status: 'warning', details: { echoed_address: '127.0.0.1' } });
    expect(report.identity).toMatchObject({ public_address: '203.0.113.5', helo_name: 'probe.example.test' });
  });

  it('prints each check for people, and exits 1 when port 25 is refused or the address is listed', async () => {
    const io = captureIo();
    const port = await closedPort();
    const code = await main(['doctor', ...flags(port), '--blocklist', 'listed.bl.test'], io);
    expect(code).toBe(EXIT.failure);
    const out = io.out();
    expect(out).toMatch(
      /^Probing as 203\.0\.113\.5 \(configured\), HELO probe\.example\.test, MAIL FROM <bounce@example\.test>, direct\n/,
    );
    expect(out).toMatch(
      new RegExp(
        `FAILED   Outbound SMTP \\(port ${port}\\)\\n {9}Connecting to 127\\.0\\.0\\.1:${port} was refused`,
      ),
    );
    expect(out).toMatch(/ok {7}Reverse DNS \(PTR\)\n/);
    expect(out).toMatch(
      /FAILED {3}listed\.bl\.test\n {9}203\.0\.113\.5 is listed on listed\.bl\.test \(listed \(return code 127\.0\.0\.2, not documented here\)\): "Listed: see https:\/\/bl\.test\/203\.0\.113\.5"/,
    );
    expect(out).toMatch(/\n2 failed, 0 warnings, 4 ok \(\d+ ms\)\n$/);
  });

  it('--config starts from what svc serve would use, and the flags override it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-doctor-'));
    try {
      const file = join(dir, 'svc.json');
      await writeFile(
        file,
        JSON.stringify({
          smtp: { heloName: 'probe.example.test', mailFrom: 'bounce@example.test', port: mta.port },
          dns: dns.address,
          probing: { testHost: '127.0.0.1', publicAddress: '203.0.113.5', blocklists: ['listed.bl.test'] },
        }),
      );
      const io = captureIo();
      expect(await main(['doctor', '--json', '--config', file, '--dnssec-name', 'signed.test'], io)).toBe(
        EXIT.failure,
      );
      const report = JSON.parse(io.out());
      expect(report.identity).toEqual({
        public_address: '203.0.113.5',
        public_address_source: 'configured',
        helo_name: 'probe.example.test',
        mail_from: 'bounce@example.test',
        proxy: null,
      });
      expect(report.checks.find((check: { id: string }) => check.id === 'outbound_smtp').details.port).toBe(
        mta.port,
      );
      expect(report.checks.at(-1)).toMatchObject({ id: 'blocklist:listed.bl.test', status: 'failed' });
      const overridden = captureIo();
      await main(
        [
          'doctor',
          '--json',
          '--config',
          file,
          '--helo',
          'other.example.test',
          '--blocklist',
          'clean.bl.test',
        ],
        overridden,
      );
      expect(JSON.parse(overridden.out()).identity.helo_name).toBe('other.example.test');
      // A bad setting in the file: exit 2 naming it.
      await writeFile(file, JSON.stringify({ probing: { publicAddress: 'nope' } }));
      const bad = captureIo();
      expect(await main(['doctor', '--config', file], bad)).toBe(EXIT.usage);
      expect(bad.err()).toMatch(/probing\.publicAddress must be an IPv4 or IPv6 address/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses bad flags with exit 2, naming the flag', async () => {
    const bad = async (...argv: string[]) => {
      const io = captureIo();
      return { code: await main(['doctor', ...argv], io), err: io.err() };
    };
    expect(await bad('--public-address', 'nope')).toMatchObject({
      code: EXIT.usage,
      err: expect.stringContaining('--public-address must be an IPv4 or IPv6 address, got "nope"'),
    });
    expect(await bad('--proxy', 'http://proxy:8080')).toMatchObject({
      code: EXIT.usage,
      err: expect.stringContaining('--proxy must use the socks5:// scheme, got http://'),
    });
    expect(await bad('--smtp-port', '0')).toMatchObject({
      code: EXIT.usage,
      err: expect.stringContaining('--smtp-port must be'),
    });
    expect(await bad('extra')).toMatchObject({
      code: EXIT.usage,
      err: expect.stringContaining('doctor takes no arguments'),
    });
  });
});
