import {
  type FakeDnsServer,
  type SmtpFleet,
  type Socks5Proxy,
  startDnsServer,
  startSmtpFleet,
  startSocks5Proxy,
} from '@svc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../exit-codes.js';
import { main } from '../main.js';
import { captureIo } from '../testing/capture-io.js';
import { fleetFlags } from '../testing/fleet-flags.js';

// svc verify --proxy: the SMTP probe through a pool of testkit SOCKS5 proxies, one of them down.

const PASSWORD = 'cli-proxy-secret';
let dns: FakeDnsServer;
let fleet: SmtpFleet;
let good: Socks5Proxy;
let down: Socks5Proxy;
let pinned: Socks5Proxy;

beforeAll(async () => {
  dns = await startDnsServer({
    zones: {
      'canary.test': { A: ['192.0.2.1'] },
      'good.test': { MX: [{ priority: 10, exchange: 'mx.good.test' }] },
      'mx.good.test': { A: ['127.0.0.2'] },
      'gmailish.test': { MX: [{ priority: 10, exchange: 'aspmx.l.google.com' }] },
      'aspmx.l.google.com': { A: ['127.0.0.2'] },
    },
  });
  fleet = await startSmtpFleet({
    hosts: ['127.0.0.2'],
    script: { mailboxes: { 'alice@good.test': 'accept', 'carol@gmailish.test': 'accept' } },
  });
  good = await startSocks5Proxy({ auth: { username: 'probe', password: PASSWORD } });
  down = await startSocks5Proxy({ failure: 'general_failure' });
  pinned = await startSocks5Proxy();
});
afterAll(async () => {
  await Promise.all([fleet?.close(), dns?.close(), good?.close(), down?.close(), pinned?.close()]);
});

const flags = () => fleetFlags(dns, fleet);

describe('svc verify --proxy', () => {
  it('probes through the pool, past a failing proxy, pinning Google to its own; results name the proxy', async () => {
    const io = captureIo();
    const argv = [
      'verify',
      'alice@good.test',
      'bob@good.test',
      'carol@gmailish.test',
      '--probe',
      '--json',
      '--proxy',
      down.url,
      '--proxy',
      `socks5://probe:${PASSWORD}@127.0.0.1:${good.port}`,
      '--proxy',
      `google=${pinned.url}`,
      ...flags(),
    ];
    expect(await main(argv, io)).toBe(EXIT.failure); // bob is undeliverable
    const results = JSON.parse(io.out()) as Array<{ email: string; state: string; smtp: { proxy?: string } }>;
    expect(results.map((result) => [result.email, result.state, result.smtp.proxy])).toEqual([
      ['alice@good.test', 'deliverable', `127.0.0.1:${good.port}`],
      ['bob@good.test', 'undeliverable', `127.0.0.1:${good.port}`],
      ['carol@gmailish.test', 'deliverable', `127.0.0.1:${pinned.port}`],
    ]);
    expect(down.connections.length).toBeGreaterThan(0);
    expect(down.relayed()).toHaveLength(0);
    expect(io.out() + io.err()).not.toContain(PASSWORD);
  });

  it('refuses a bad proxy flag as a usage error that names the flag, not the password', async () => {
    const io = captureIo();
    const code = await main(
      ['verify', 'alice@good.test', '--probe', '--proxy', `http://probe:${PASSWORD}@127.0.0.1:1`, ...flags()],
      io,
    );
    expect(code).toBe(EXIT.usage);
    expect(io.err()).toContain('--proxy #1 must use the socks5:// scheme, got http://');
    expect(io.err()).not.toContain(PASSWORD);
    const selection = captureIo();
    expect(
      await main(
        ['verify', 'a@good.test', '--proxy', good.url, '--proxy-selection', 'random', ...flags()],
        selection,
      ),
    ).toBe(EXIT.usage);
    expect(selection.err()).toContain('--proxy-selection must be per-provider or round-robin');
    const pin = captureIo();
    expect(await main(['verify', 'a@good.test', '--proxy', `gmail=${good.url}`, ...flags()], pin)).toBe(
      EXIT.usage,
    );
    expect(pin.err()).toContain('--proxy #1.providers: unknown provider "gmail"');
  });
});
