import {
  type FakeDnsServer,
  fleetProbeOptions,
  type SmtpFleet,
  type Socks5Proxy,
  startDnsServer,
  startSmtpFleet,
  startSocks5Proxy,
} from '@svc/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createNodeDnsResolver } from './dns/backends/node-dns.js';
import type { ProxyPoolEvent } from './smtp/proxy-pool.js';
import { createVerifier, type VerificationResult } from './verifier.js';
import type { SmtpProbeOptions, VerifierOptions } from './verifier-options.js';

// The receiving providers are recognised by their MX host names, which the fake DNS serves
// on loopback addresses of the testkit fleet.
const ZONES = {
  // The resolver health check's canary (README "Resolver health").
  'canary.test': { A: ['192.0.2.1'] },
  'gmailish.test': { MX: [{ priority: 10, exchange: 'alt1.aspmx.l.google.com' }] },
  'alt1.aspmx.l.google.com': { A: ['127.0.0.2'] },
  'outlookish.test': { MX: [{ priority: 10, exchange: 'outlookish-test.mail.protection.outlook.com' }] },
  'outlookish-test.mail.protection.outlook.com': { A: ['127.0.0.3'] },
  'plain.test': { MX: [{ priority: 10, exchange: 'mx.plain.test' }] },
  'mx.plain.test': { A: ['127.0.0.4'] },
  'busy.test': { MX: [{ priority: 10, exchange: 'mx.busy.test' }] },
  'mx.busy.test': { A: ['127.0.0.5'] },
};
const SECRET = 'pa55-w0rd-never-shown';

let dns: FakeDnsServer;
let fleet: SmtpFleet;
const proxies: Socks5Proxy[] = [];

beforeAll(async () => {
  dns = await startDnsServer({ zones: ZONES });
  fleet = await startSmtpFleet({
    hosts: ['127.0.0.2', '127.0.0.3', '127.0.0.4', { host: '127.0.0.5', script: { greeting: 'busy' } }],
    script: {
      // Real addresses are `ok…`, everything else 550 5.1.1.
      mailboxes: Object.fromEntries(
        ['gmailish', 'outlookish', 'plain'].flatMap((domain) =>
          Array.from({ length: 40 }, (_, index) => [`ok${index}@${domain}.test`, 'accept' as const]),
        ),
      ),
    },
  });
});
afterAll(async () => {
  await Promise.all([dns?.close(), fleet?.close()]);
});
afterEach(async () => {
  await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
  fleet.resetRecords();
});

async function startProxies(count: number, auth = false): Promise<Socks5Proxy[]> {
  const started = await Promise.all(
    Array.from({ length: count }, () =>
      startSocks5Proxy(auth ? { auth: { username: 'probe', password: SECRET } } : {}),
    ),
  );
  proxies.push(...started);
  return started;
}

const url = (proxy: Socks5Proxy, auth = false) =>
  auth ? `socks5://probe:${SECRET}@127.0.0.1:${proxy.port}` : proxy.url;
const label = (proxy: Socks5Proxy) => `127.0.0.1:${proxy.port}`;

function verifierWith(smtp: SmtpProbeOptions, extra: VerifierOptions = {}) {
  return createVerifier({
    dns: createNodeDnsResolver({ servers: [dns.address], timeoutMs: 500, tries: 1 }),
    dnsCache: false,
    resolverHealth: { canaries: ['canary.test'] },
    ...extra,
    smtp: { ...fleetProbeOptions(fleet), connectTimeoutMs: 400, timeoutMs: 4000, ...smtp },
  });
}

const addresses = (domain: string, count: number, from = 0) =>
  Array.from({ length: count }, (_, index) => `ok${from + index}@${domain}.test`);
const byProxy = (results: VerificationResult[]) => {
  const counts: Record<string, number> = {};
  for (const result of results) {
    const name = result.smtp?.proxy ?? 'none';
    counts[name] = (counts[name] ?? 0) + 1;
  }
  return counts;
};

describe('SMTP probes through a pool of SOCKS5 proxies (testkit proxies, fleet and DNS)', () => {
  it('round-robin spreads sessions over the proxies, and each result names the proxy that served it', async () => {
    const [a, b, c] = await startProxies(3, true);
    const pool = [a, b, c] as Socks5Proxy[];
    const verifier = verifierWith({
      proxies: pool.map((proxy) => ({ url: url(proxy, true) })),
      proxySelection: 'round-robin',
      maxRcptsPerSession: 2,
      perHostConcurrency: 1,
    });
    const results = await verifier.verifyMany(addresses('plain', 12), { probe_mailbox: true });
    expect(results.map((result) => result.state)).toEqual(Array(12).fill('deliverable'));
    const served = byProxy(results);
    // Every proxy carried sessions, and each result's proxy is one that relayed to the MX.
    for (const proxy of pool) {
      expect(proxy.relayed(`127.0.0.4:${fleet.port}`).length, label(proxy)).toBeGreaterThan(0);
      expect(served[label(proxy)], label(proxy)).toBeGreaterThan(0);
    }
    expect(Object.keys(served).sort()).toEqual(pool.map(label).sort());
    // The MTA saw only the proxies' connections, never one from us directly past them.
    const relayedSessions = pool.reduce((sum, proxy) => sum + proxy.relayed().length, 0);
    expect(fleet.sessionsFor('127.0.0.4').length).toBe(relayedSessions);
    expect(JSON.stringify(results)).not.toContain(SECRET);
  });

  it('pins proxies to receiving providers; the unpinned ones carry everyone else', async () => {
    const [google, microsoft, general] = (await startProxies(3)) as [Socks5Proxy, Socks5Proxy, Socks5Proxy];
    const verifier = verifierWith({
      proxies: [
        { url: google.url, label: 'google-ip', providers: ['google'] },
        { url: microsoft.url, label: 'microsoft-ip', providers: ['microsoft'] },
        { url: general.url, label: 'general' },
      ],
      proxySelection: 'per-provider',
    });
    const results = await verifier.verifyMany(
      [
        ...addresses('gmailish', 3),
        ...addresses('outlookish', 3),
        ...addresses('plain', 3),
        'nobody@plain.test',
      ],
      { probe_mailbox: true },
    );
    expect(results.map((result) => [result.email.split('@')[1], result.smtp?.proxy])).toEqual([
      ...Array(3).fill(['gmailish.test', 'google-ip']),
      ...Array(3).fill(['outlookish.test', 'microsoft-ip']),
      ...Array(4).fill(['plain.test', 'general']),
    ]);
    expect(results.at(-1)?.state).toBe('undeliverable');
    expect(google.relayed().map((record) => record.target)).toEqual(
      Array(google.relayed().length).fill(`127.0.0.2:${fleet.port}`),
    );
    expect(new Set(microsoft.relayed().map((record) => record.target))).toEqual(
      new Set([`127.0.0.3:${fleet.port}`]),
    );
    expect(new Set(general.relayed().map((record) => record.target))).toEqual(
      new Set([`127.0.0.4:${fleet.port}`]),
    );
  });

  it.each([
    ['refuses connections', 'refuse_connection'],
    ['answers general failure', 'general_failure'],
    ['answers not allowed', 'not_allowed'],
    ['hangs', 'hang'],
  ] as const)(
    'takes out a proxy that %s and goes on through the others; it comes back after the cool-down',
    async (_name, mode) => {
      const [good1, bad, good2] = (await startProxies(3)) as [Socks5Proxy, Socks5Proxy, Socks5Proxy];
      await bad.setFailure(mode);
      let now = Date.parse('2026-11-23T22:00:00Z');
      const events: ProxyPoolEvent[] = [];
      const verifier = verifierWith(
        {
          proxies: [good1, bad, good2].map((proxy) => ({ url: proxy.url })),
          proxySelection: 'round-robin',
          maxRcptsPerSession: 2,
          perHostConcurrency: 1,
          proxyCooldown: { initialMs: 60_000 },
          onProxyEvent: (event) => events.push(event),
        },
        { clock: () => new Date(now) },
      );
      const first = await verifier.verifyMany(addresses('plain', 12), { probe_mailbox: true });
      expect(first.map((result) => result.state)).toEqual(Array(12).fill('deliverable'));
      expect(Object.keys(byProxy(first)).sort()).toEqual([label(good1), label(good2)].sort());
      // Out after one failure: no further attempt through it during the cool-down.
      expect(events.map((event) => [event.proxy, event.state, event.failures])).toEqual([
        [label(bad), 'out', 1],
      ]);
      expect(events[0]?.until).toBe(new Date(now + 60_000).toISOString());
      const attempts = bad.connections.length;
      expect(attempts).toBeLessThanOrEqual(1);
      const during = await verifier.verifyMany(addresses('plain', 6, 12), { probe_mailbox: true });
      expect(during.every((result) => result.state === 'deliverable')).toBe(true);
      expect(bad.connections.length).toBe(attempts);

      // Repaired, and the cool-down over (an injected clock): it carries sessions again.
      await bad.setFailure('none');
      now += 60_000;
      const after = await verifier.verifyMany(addresses('plain', 12, 18), { probe_mailbox: true });
      expect(after.every((result) => result.state === 'deliverable')).toBe(true);
      expect(bad.relayed().length).toBeGreaterThan(0);
      expect(byProxy(after)[label(bad)]).toBeGreaterThan(0);
      expect(events.at(-1)).toMatchObject({ proxy: label(bad), state: 'back' });
    },
  );

  it('answers unknown with proxy_unavailable when every proxy is out, and names no credentials', async () => {
    const [a, b] = (await startProxies(2, true)) as [Socks5Proxy, Socks5Proxy];
    await a.setFailure('refuse_connection');
    await b.setFailure('general_failure');
    const events: ProxyPoolEvent[] = [];
    const verifier = verifierWith({
      proxies: [{ url: url(a, true) }, { url: url(b, true) }],
      onProxyEvent: (event) => events.push(event),
    });
    const result = await verifier.verify('ok1@plain.test', { probe_mailbox: true });
    expect(result).toMatchObject({ state: 'unknown', deliverable: false, reasons: ['proxy_unavailable'] });
    expect(result.smtp).toMatchObject({ host: 'mx.plain.test', code: null });
    expect(result.smtp?.message).toMatch(
      new RegExp(
        `^no SOCKS5 proxy available; out after failing: 127\\.0\\.0\\.1:${a.port}: .*ECONNREFUSED.*; 127\\.0\\.0\\.1:${b.port}: SOCKS5 proxy 127\\.0\\.0\\.1:${b.port}: general failure \\(reply 1\\)`,
      ),
    );
    expect([...a.relayed(), ...b.relayed()]).toHaveLength(0);
    // Still out: the next probe does not try them at all.
    const again = await verifier.verify('ok2@plain.test', { probe_mailbox: true });
    expect(again.reasons).toEqual(['proxy_unavailable']);
    expect(b.connections).toHaveLength(1);
    expect(JSON.stringify([result, again, events])).not.toContain(SECRET);
    expect(JSON.stringify([result, again, events])).not.toContain('probe:');
  });

  it('does not blame a proxy for the MTA: a 421 greeting or an unreachable MX keeps the proxy in', async () => {
    const [proxy] = (await startProxies(1)) as [Socks5Proxy];
    const events: ProxyPoolEvent[] = [];
    const verifier = verifierWith({
      proxies: [{ url: proxy.url }],
      onProxyEvent: (event) => events.push(event),
    });
    const busy = await verifier.verify('ok1@busy.test', { probe_mailbox: true });
    expect(busy.state).toBe('unknown');
    expect(busy.reasons).not.toContain('proxy_unavailable');
    expect(busy.smtp).toMatchObject({ code: 421, proxy: label(proxy) });
    // The proxy answers "host unreachable" (reply 4): about the MX, as a direct connection would say.
    await proxy.setFailure('host_unreachable');
    const unreachable = await verifier.verify('ok2@plain.test', { probe_mailbox: true });
    expect(unreachable.reasons).toEqual(['smtp_unreachable']);
    expect(unreachable.smtp?.message).toContain('host unreachable (reply 4)');
    await proxy.setFailure('none');
    const fine = await verifier.verify('ok3@plain.test', { probe_mailbox: true });
    expect(fine).toMatchObject({ state: 'deliverable', smtp: { proxy: label(proxy) } });
    expect(events).toEqual([]);
  });

  it('holds per-(proxy, MX) connection limits: each proxy its own', async () => {
    const [one, two] = (await startProxies(2)) as [Socks5Proxy, Socks5Proxy];
    const verifier = verifierWith({
      proxies: [
        { url: one.url, perHostConcurrency: 1 },
        { url: two.url, perHostConcurrency: 2 },
      ],
      maxRcptsPerSession: 1,
    });
    const results = await verifier.verifyMany(addresses('plain', 30), { probe_mailbox: true });
    expect(results.every((result) => result.state === 'deliverable')).toBe(true);
    const target = `127.0.0.4:${fleet.port}`;
    expect(one.peakRelays(target)).toBe(1);
    expect(two.peakRelays(target)).toBe(2);
    // Together they exceed the per-MX limit of one client: each proxy is a client of its own.
    expect(fleet.peakConnections('127.0.0.4')).toBeGreaterThanOrEqual(2);
    expect(fleet.peakConnections('127.0.0.4')).toBeLessThanOrEqual(3);
  });

  it('paces new sessions per (proxy, MX) to sessionsPerMinute, evenly spaced even when slots are free', async () => {
    const [proxy] = (await startProxies(1)) as [Socks5Proxy];
    const verifier = verifierWith({
      proxies: [{ url: proxy.url, sessionsPerMinute: 600, perHostConcurrency: 3 }],
      maxRcptsPerSession: 1,
    });
    const before = Date.now();
    const results = await verifier.verifyMany(addresses('plain', 5), { probe_mailbox: true });
    expect(results.every((result) => result.state === 'deliverable')).toBe(true);
    const starts = proxy
      .relayed(`127.0.0.4:${fleet.port}`)
      .map((record) => record.openedAt.getTime())
      .sort((a, b) => a - b);
    expect(starts.length).toBeGreaterThanOrEqual(5);
    // 600 a minute is one every 100 ms: the i-th session is booked no earlier than i × 100 ms
    // after the first, so it reaches the proxy no earlier than that after the call began (a few
    // ms of clock rounding allowed). Measured from the call, not between neighbours: a loaded
    // machine delays some starts and not others, which says nothing about the pace. The exact
    // spacing is proxy-pool.test.ts's, on a fake clock.
    for (let index = 1; index < starts.length; index++)
      expect((starts[index] as number) - before, String(index)).toBeGreaterThanOrEqual(index * 100 - 5);
  });

  it('keeps the single proxy option: a pool of one named host:port', async () => {
    const [proxy] = (await startProxies(1, true)) as [Socks5Proxy];
    const verifier = verifierWith({
      proxy: { host: '127.0.0.1', port: proxy.port, username: 'probe', password: SECRET },
    });
    const result = await verifier.verify('ok5@gmailish.test', { probe_mailbox: true });
    expect(result).toMatchObject({ state: 'deliverable', smtp: { proxy: label(proxy) } });
    expect(proxy.relayed()[0]?.username).toBe('probe');
  });
});
