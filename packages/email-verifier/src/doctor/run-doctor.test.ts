import {
  type BlackholePort,
  closedPort,
  type FakeDnsServer,
  type SmtpFleet,
  type Socks5Proxy,
  startBlackholePort,
  startDnsServer,
  startSilentPort,
  startSmtpServer,
  startSocks5Proxy,
} from '@svc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_BLOCKLISTS } from './blocklists.js';
import type { DoctorOptions } from './options.js';
import type { DoctorReport } from './report.js';
import { runDoctor } from './run-doctor.js';

// A fake internet: one DNS server acting as resolver, reverse DNS (in-addr.arpa) and blocklists;
// a plain MTA (Postfix-like, echoes nothing) and one that echoes the client address like Exim.
const spamhausLike = {
  ...(DEFAULT_BLOCKLISTS[0] as (typeof DEFAULT_BLOCKLISTS)[number]),
  zone: 'zen.bl.test',
};
const cleanList = {
  zone: 'clean.bl.test',
  name: 'Clean list',
  codes: { '127.0.0.2': 'listed' },
  delisting: null,
  ipv6: false,
};

let dns: FakeDnsServer;
let mta: SmtpFleet;
let echoingMta: SmtpFleet;
const cleanup: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  dns = await startDnsServer({
    zones: {
      'signed.test': { A: ['127.0.0.2'], authenticated: true },
      'unsigned.test': { A: ['127.0.0.2'] },
      'silent.test': 'NO_ANSWER',
      'broken.test': 'SERVFAIL',
      // 203.0.113.5: all good. 203.0.113.6: PTR that does not resolve back. 203.0.113.7: no PTR.
      '5.113.0.203.in-addr.arpa': { PTR: ['probe.example.test'] },
      '6.113.0.203.in-addr.arpa': { PTR: ['static-6.isp.test'] },
      '1.0.0.127.in-addr.arpa': { PTR: ['loop.example.test'] },
      'probe.example.test': { A: ['203.0.113.5'], TXT: ['v=spf1 ip4:203.0.113.5 -all'] },
      'static-6.isp.test': { A: ['198.51.100.1'] },
      'loop.example.test': { A: ['127.0.0.1'] },
      'example.test': {
        MX: [{ priority: 10, exchange: 'mx.example.test' }],
        TXT: ['google-site-verification=x', 'v=spf1 ip4:203.0.113.5 -all'],
      },
      'nospf.test': { MX: [{ priority: 10, exchange: 'mx.example.test' }] },
      'twospf.test': {
        MX: [{ priority: 10, exchange: 'mx.example.test' }],
        TXT: ['v=spf1 -all', 'v=spf1 a -all'],
      },
      'nomx.test': { TXT: ['v=spf1 -all'] },
      // 203.0.113.6 is in the Spamhaus-like list's PBL, 203.0.113.7 gets the public-resolver refusal.
      '6.113.0.203.zen.bl.test': {
        A: ['127.0.0.10'],
        TXT: ['https://check.spamhaus.org/query/ip/203.0.113.6'],
      },
      '7.113.0.203.zen.bl.test': { A: ['127.255.255.254'] },
      // RFC 5782 test entries: a list that answers them is alive. dead.bl.test has none.
      '2.0.0.127.zen.bl.test': { A: ['127.0.0.2'] },
      '2.0.0.127.clean.bl.test': { A: ['127.0.0.2'] },
    },
  });
  mta = await startSmtpServer({});
  echoingMta = await startSmtpServer({ script: { ehloGreeting: 'mx.test Hello {helo} [{client}]' } });
  cleanup.push(
    () => dns.close(),
    () => mta.close(),
    () => echoingMta.close(),
  );
});
afterAll(async () => {
  await Promise.all(cleanup.map((close) => close()));
});

function options(overrides: DoctorOptions = {}): DoctorOptions {
  return {
    heloName: 'probe.example.test',
    mailFrom: 'bounce@example.test',
    publicAddress: '203.0.113.5',
    testHost: '127.0.0.1',
    port: mta.port,
    dnsServer: dns.address,
    dnssecTestName: 'signed.test',
    blocklists: [spamhausLike, cleanList],
    connectTimeoutMs: 2000,
    commandTimeoutMs: 2000,
    dnsTimeoutMs: 1000,
    // Loopback answers in a millisecond; a loaded CI machine must not turn that into a warning.
    slowDnsMs: 3000,
    ...overrides,
  };
}

const byId = (report: DoctorReport, id: string) => {
  const check = report.checks.find((c) => c.id === id);
  if (!check) throw new Error(`no check ${id} in ${report.checks.map((c) => c.id).join(', ')}`);
  return check;
};

describe('runDoctor against the testkit', () => {
  it('a well set up prober: every check ok', async () => {
    const report = await runDoctor(options());
    expect(report.checks.map((c) => [c.id, c.status])).toEqual([
      ['dns_resolver', 'ok'],
      ['outbound_smtp', 'ok'],
      ['public_address', 'ok'],
      ['reverse_dns', 'ok'],
      ['sender_domain', 'ok'],
      ['blocklist:zen.bl.test', 'ok'],
      ['blocklist:clean.bl.test', 'ok'],
    ]);
    expect(report.status).toBe('ok');
    expect(report.identity).toEqual({
      public_address: '203.0.113.5',
      public_address_source: 'configured',
      helo_name: 'probe.example.test',
      mail_from: 'bounce@example.test',
      proxy: null,
    });
    expect(byId(report, 'dns_resolver').details).toMatchObject({ answered: true, dnssec_validating: true });
    expect(byId(report, 'dns_resolver').message).toMatch(/validates DNSSEC/);
    expect(byId(report, 'outbound_smtp').details).toMatchObject({
      outcome: 'reachable',
      banner: '220 mx.test ESMTP testkit',
    });
    expect(byId(report, 'reverse_dns').details).toMatchObject({
      ptr: ['probe.example.test'],
      forward_confirmed: true,
      matches_helo: true,
    });
    expect(byId(report, 'sender_domain').details).toMatchObject({
      spf: ['v=spf1 ip4:203.0.113.5 -all'],
      mx: ['mx.example.test'],
    });
    // The blocklist questions went to the reversed address under each zone.
    expect(dns.queries.map((q) => q.name)).toContain('5.113.0.203.zen.bl.test');
    expect(JSON.parse(JSON.stringify(report))).toEqual(report);
  });

  it('a listed address with a PTR that does not resolve back: failed, decoded, with the delisting page', async () => {
    const report = await runDoctor(options({ publicAddress: '203.0.113.6' }));
    expect(report.status).toBe('failed');
    const listing = byId(report, 'blocklist:zen.bl.test');
    expect(listing.status).toBe('failed');
    expect(listing.details).toMatchObject({
      listed: true,
      answers: [
        { code: '127.0.0.10', kind: 'listed', meaning: expect.stringMatching(/^PBL \(ISP maintained\)/) },
      ],
      reason: ['https://check.spamhaus.org/query/ip/203.0.113.6'],
      delisting: 'https://check.spamhaus.org/',
    });
    expect(listing.message).toMatch(
      /203\.0\.113\.6 is listed on Spamhaus ZEN \(PBL .*request removal at https:\/\/check\.spamhaus\.org\//,
    );
    const ptr = byId(report, 'reverse_dns');
    expect(ptr.status).toBe('failed');
    expect(ptr.details).toMatchObject({ ptr: ['static-6.isp.test'], forward_confirmed: false });
    expect(ptr.message).toMatch(/does not resolve back/);
    expect(byId(report, 'blocklist:clean.bl.test').status).toBe('ok');
  });

  it("no PTR fails; Spamhaus's public-resolver answer is a warning (can't tell), not a listing", async () => {
    const report = await runDoctor(options({ publicAddress: '203.0.113.7' }));
    expect(byId(report, 'reverse_dns')).toMatchObject({ status: 'failed', details: { ptr: [] } });
    expect(byId(report, 'reverse_dns').message).toMatch(
      /has no reverse DNS.*set its PTR to probe\.example\.test/,
    );
    const zen = byId(report, 'blocklist:zen.bl.test');
    expect(zen.status).toBe('warning');
    expect(zen.details).toMatchObject({
      listed: null,
      answers: [{ code: '127.255.255.254', kind: 'refused' }],
    });
    expect(zen.message).toMatch(/Can't tell.*public or open resolver/);
  });

  it('learns the public address from an MTA that echoes it, and checks that address', async () => {
    const report = await runDoctor(options({ publicAddress: undefined, port: echoingMta.port }));
    expect(report.identity).toMatchObject({
      public_address: '127.0.0.1',
      public_address_source: 'ehlo_reply',
    });
    expect(byId(report, 'outbound_smtp').details).toMatchObject({
      echoed_address: '127.0.0.1',
      ehlo_reply: '250 mx.test Hello probe.example.test [127.0.0.1]',
    });
    // Loopback is what a NAT hides: a warning that says so.
    expect(byId(report, 'public_address')).toMatchObject({ status: 'warning', message: /loopback address/ });
    // Its PTR loop.example.test resolves back, but is not the HELO name.
    expect(byId(report, 'reverse_dns')).toMatchObject({
      status: 'warning',
      details: { ptr: ['loop.example.test'], forward_confirmed: true, matches_helo: false },
    });
    expect(byId(report, 'reverse_dns').message).toMatch(/Set the HELO name to loop\.example\.test/);
    expect(dns.queries.map((q) => q.name)).toContain('1.0.0.127.zen.bl.test');
  });

  it('a configured address that differs from the echoed one: receivers see the echoed one', async () => {
    const report = await runDoctor(options({ port: echoingMta.port }));
    expect(byId(report, 'public_address')).toMatchObject({
      status: 'warning',
      message: /203\.0\.113\.5 is configured, but 127\.0\.0\.1 saw 127\.0\.0\.1|but 127\.0\.0\.1 saw/,
    });
  });

  it("a list that does not answer its RFC 5782 test entry: can't tell, not 'not listed'", async () => {
    const dead = { zone: 'dead.bl.test', name: 'Dead list', codes: {}, delisting: null, ipv6: false };
    const report = await runDoctor(options({ blocklists: [dead] }));
    expect(byId(report, 'blocklist:dead.bl.test')).toMatchObject({
      status: 'warning',
      details: { listed: null, test_query: '2.0.0.127.dead.bl.test' },
      message: expect.stringMatching(
        /Can't tell whether 203\.0\.113\.5 is on Dead list: it does not list its RFC 5782 test entry/,
      ),
    });
    // A list declared without a test entry is taken at its word.
    const trusted = await runDoctor(options({ blocklists: [{ ...dead, testEntry: false }] }));
    expect(byId(trusted, 'blocklist:dead.bl.test')).toMatchObject({
      status: 'ok',
      details: { listed: false },
    });
  });

  it('a closed port: refused, exit-worthy, and what it means', async () => {
    const report = await runDoctor(options({ publicAddress: undefined, port: await closedPort() }));
    expect(report.status).toBe('failed');
    const outbound = byId(report, 'outbound_smtp');
    expect(outbound).toMatchObject({
      status: 'failed',
      details: { outcome: 'refused', error: 'ECONNREFUSED' },
    });
    expect(outbound.message).toMatch(/refused \(TCP reset.*your provider blocks port 25.*SOCKS5 proxy/);
    // Nothing learned: the address-based checks say why they did not run.
    expect(byId(report, 'public_address').status).toBe('warning');
    expect(byId(report, 'reverse_dns')).toMatchObject({ status: 'warning', details: { skipped: true } });
    expect(byId(report, 'blocklist:zen.bl.test')).toMatchObject({
      status: 'warning',
      details: { skipped: true },
    });
  });

  it('a port whose SYNs are dropped: timed out (filtered by a silent firewall)', async () => {
    const blackhole: BlackholePort = await startBlackholePort();
    try {
      // The port never answers: timed_out, named with the 0.3 s limit, is the proof (not timed).
      const report = await runDoctor(options({ port: blackhole.port, connectTimeoutMs: 300 }));
      const outbound = byId(report, 'outbound_smtp');
      expect(outbound).toMatchObject({ status: 'failed', details: { outcome: 'timed_out' } });
      expect(outbound.message).toMatch(
        /No answer from 127\.0\.0\.1:\d+ within 0\.3 s: the connection attempt was silently dropped/,
      );
    } finally {
      await blackhole.close();
    }
  });

  it('a port that accepts and never greets: no_greeting', async () => {
    const silent = await startSilentPort();
    try {
      const report = await runDoctor(options({ port: silent.port, commandTimeoutMs: 300 }));
      expect(byId(report, 'outbound_smtp')).toMatchObject({
        status: 'failed',
        details: { outcome: 'no_greeting' },
        message: expect.stringMatching(/no SMTP greeting came within 0\.3 s/),
      });
    } finally {
      await silent.close();
    }
  });

  it('a resolver that does not answer fails the DNS check; an unsigned name is reported as not validating', async () => {
    const silent = await runDoctor(options({ dnssecTestName: 'silent.test', dnsTimeoutMs: 200 }));
    expect(byId(silent, 'dns_resolver')).toMatchObject({ status: 'failed', details: { answered: false } });
    expect(byId(silent, 'dns_resolver').message).toMatch(/did not answer \(no answer in time\)/);
    // Without a working resolver the DNS-based checks say so instead of guessing.
    expect(byId(silent, 'reverse_dns')).toMatchObject({ status: 'warning', details: { skipped: true } });
    expect(byId(silent, 'blocklist:zen.bl.test').message).toMatch(
      /^Not checked: the DNS resolver does not work/,
    );
    const broken = await runDoctor(options({ dnssecTestName: 'broken.test' }));
    expect(byId(broken, 'dns_resolver')).toMatchObject({ status: 'failed', details: { rcode: 'SERVFAIL' } });
    const unsigned = await runDoctor(options({ dnssecTestName: 'unsigned.test' }));
    expect(byId(unsigned, 'dns_resolver')).toMatchObject({
      status: 'ok',
      details: { dnssec_validating: false },
    });
    expect(byId(unsigned, 'dns_resolver').message).toMatch(/does not validate DNSSEC/);
    expect(byId(unsigned, 'dns_resolver').details.latency_ms).toEqual(expect.any(Number));
    const slow = await runDoctor(options({ dnssecTestName: 'unsigned.test', slowDnsMs: 1 }));
    dns.setZone('unsigned.test', { A: ['127.0.0.2'], delayMs: 30 });
    const slower = await runDoctor(options({ dnssecTestName: 'unsigned.test', slowDnsMs: 10 }));
    dns.setZone('unsigned.test', { A: ['127.0.0.2'] });
    expect(byId(slower, 'dns_resolver')).toMatchObject({ status: 'warning', message: /slower than 10 ms/ });
    expect(['ok', 'warning']).toContain(byId(slow, 'dns_resolver').status);
  });

  it('the sender domain: SPF and MX, and the null sender checked by its HELO name', async () => {
    const spf = async (overrides: DoctorOptions) =>
      byId(await runDoctor(options({ blocklists: [], ...overrides })), 'sender_domain');
    expect(await spf({ mailFrom: 'a@nospf.test' })).toMatchObject({
      status: 'warning',
      message: /has no SPF record/,
    });
    expect(await spf({ mailFrom: 'a@twospf.test' })).toMatchObject({
      status: 'failed',
      message: /has 2 SPF records/,
    });
    expect(await spf({ mailFrom: 'a@nomx.test' })).toMatchObject({ status: 'failed', message: /has no MX/ });
    expect(await spf({ mailFrom: 'a@gone.test' })).toMatchObject({
      status: 'failed',
      message: /does not exist in DNS/,
    });
    expect(await spf({ mailFrom: '' })).toMatchObject({
      status: 'ok',
      details: { domain: 'probe.example.test', null_sender: true },
      message: /null sender/,
    });
    expect(await spf({ mailFrom: '', heloName: 'loop.example.test' })).toMatchObject({ status: 'warning' });
  });

  it('refuses bad options with a message naming them', async () => {
    await expect(runDoctor(options({ publicAddress: 'not-an-ip' }))).rejects.toThrow(
      'publicAddress must be an IPv4 or IPv6 address, got "not-an-ip"',
    );
    await expect(runDoctor(options({ dnsServer: 'a:b:c:d:e:x' }))).rejects.toThrow(/dnsServer must be/);
    await expect(runDoctor(options({ heloName: 'bad name' }))).rejects.toThrow(
      /heloName must be a host name/,
    );
  });
});

describe('runDoctor through a SOCKS5 proxy', () => {
  let proxy: Socks5Proxy;
  beforeAll(async () => {
    proxy = await startSocks5Proxy();
    cleanup.push(() => proxy.close());
  });

  it('reaches the test host through the proxy and learns the address it shows', async () => {
    await proxy.setFailure('none');
    const report = await runDoctor(
      options({
        publicAddress: undefined,
        port: echoingMta.port,
        proxy: { host: proxy.host, port: proxy.port },
      }),
    );
    expect(byId(report, 'outbound_smtp')).toMatchObject({
      status: 'ok',
      details: { outcome: 'reachable', proxy: `${proxy.host}:${proxy.port}` },
      message: expect.stringMatching(/through the SOCKS5 proxy/),
    });
    expect(proxy.relayed(`127.0.0.1:${echoingMta.port}`).length).toBeGreaterThan(0);
    expect(report.identity).toMatchObject({
      public_address_source: 'ehlo_reply',
      proxy: `${proxy.host}:${proxy.port}`,
    });
  });

  it('tells a proxy that is down from one that cannot reach the host, and from a target that refuses', async () => {
    const outcome = async (overrides: DoctorOptions) =>
      byId(
        await runDoctor(
          options({ blocklists: [], proxy: { host: proxy.host, port: proxy.port }, ...overrides }),
        ),
        'outbound_smtp',
      );
    await proxy.setFailure('host_unreachable');
    expect(await outcome({})).toMatchObject({
      status: 'failed',
      details: { outcome: 'filtered' },
      message: /proxy cannot reach/,
    });
    await proxy.setFailure('not_allowed');
    expect(await outcome({})).toMatchObject({
      details: { outcome: 'proxy_refused' },
      message: /rules forbid port 25/,
    });
    await proxy.setFailure('hang');
    // A proxy that never answers its handshake: the proxy's failure (or, reported as a timeout).
    const hung = await outcome({ connectTimeoutMs: 300 });
    expect(hung.status).toBe('failed');
    expect(['proxy_failed', 'timed_out']).toContain(hung.details.outcome);
    await proxy.setFailure('refuse_connection');
    expect(await outcome({})).toMatchObject({
      details: { outcome: 'proxy_unreachable' },
      message: /cannot be reached \(ECONNREFUSED\)/,
    });
    await proxy.setFailure('none');
    expect(await outcome({ port: await closedPort() })).toMatchObject({
      details: { outcome: 'refused' },
      message: /proxy reports/,
    });
  });
});
