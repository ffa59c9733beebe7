import { createSocket } from 'node:dgram';
import { promises as dns } from 'node:dns';
import { createServer } from 'node:net';
import { networkInterfaces } from 'node:os';
import { TCPClient } from 'dns2';
import { afterEach, describe, expect, it } from 'vitest';
import { type DnsServerOptions, type FakeDnsServer, startDnsServer } from './index.js';

// Lifecycle, run-time changes, recording and the TCP listener.
const started: FakeDnsServer[] = [];

async function start(options: DnsServerOptions): Promise<FakeDnsServer> {
  const server = await startDnsServer(options);
  started.push(server);
  return server;
}

function resolverFor(server: FakeDnsServer, timeout = 2000): dns.Resolver {
  const resolver = new dns.Resolver({ timeout, tries: 1 });
  resolver.setServers([server.address]);
  return resolver;
}

/** A DNS-over-TCP client (dns2's), talking to the fake's TCP listener only. */
function tcpClientFor(server: FakeDnsServer) {
  return TCPClient({ dns: server.host, port: server.port });
}

/** Resolves once UDP and TCP can both bind `port` on `host`, i.e. the fake released it. */
async function bindBoth(host: string, port: number): Promise<void> {
  const udp = createSocket('udp4');
  await new Promise<void>((resolve, reject) => {
    udp.once('error', reject);
    udp.bind(port, host, () => resolve());
  });
  await new Promise<void>((resolve) => udp.close(() => resolve()));
  const tcp = createServer();
  await new Promise<void>((resolve, reject) => {
    tcp.once('error', reject);
    tcp.listen(port, host, () => resolve());
  });
  await new Promise<void>((resolve) => tcp.close(() => resolve()));
}

function activeTimers(): number {
  return process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;
}

afterEach(async () => {
  await Promise.all(started.splice(0).map((server) => server.close()));
});

describe('startDnsServer', () => {
  it('listens on 127.0.0.1 with one ephemeral port for UDP and TCP', async () => {
    const server = await start({ zones: { 'example.test': { A: ['127.0.0.2'] } } });
    expect(server.host).toBe('127.0.0.1');
    expect(server.port).toBeGreaterThan(0);
    expect(server.address).toBe(`127.0.0.1:${server.port}`);
    expect(await resolverFor(server).resolve4('example.test')).toEqual(['127.0.0.2']);
    const reply = await tcpClientFor(server)('example.test', 'A');
    expect(reply.answers.map((answer) => answer.address)).toEqual(['127.0.0.2']);
  });

  it('listens on another 127.0.0.x address when asked', async () => {
    const server = await start({ host: '127.0.0.3', zones: { 'example.test': { A: ['127.0.0.9'] } } });
    expect(server.address).toBe(`127.0.0.3:${server.port}`);
    expect(await resolverFor(server).resolve4('example.test')).toEqual(['127.0.0.9']);
  });

  const hasIpv6Loopback = Object.values(networkInterfaces()).some((list) =>
    list?.some((item) => item.address === '::1'),
  );
  it.skipIf(!hasIpv6Loopback)('listens on ::1 and gives a bracketed address', async () => {
    const server = await start({ host: '::1', zones: { 'example.test': { A: ['127.0.0.9'] } } });
    expect(server.address).toBe(`[::1]:${server.port}`);
    expect(await resolverFor(server).resolve4('example.test')).toEqual(['127.0.0.9']);
  });

  it('rejects a fixed port that is already taken', async () => {
    const first = await start({});
    await expect(startDnsServer({ port: first.port })).rejects.toMatchObject({ code: 'EADDRINUSE' });
  });
});

describe('TCP', () => {
  it('answers over TCP, keeping the case of the asked name, with an SOA on negative answers', async () => {
    const server = await start({
      zones: {
        'Example.Test': {
          MX: [{ priority: 5, exchange: 'mx.example.test' }],
          SOA: { primary: 'ns.example.test', admin: 'admin.example.test', minimum: 60 },
        },
      },
    });
    const resolve = tcpClientFor(server);

    const mx = await resolve('EXAMPLE.test', 'MX');
    expect(mx.header.rcode).toBe(0);
    expect(mx.header.aa).toBe(1);
    expect(mx.answers).toMatchObject([{ name: 'EXAMPLE.test', priority: 5 }]);
    // dns2 compresses names case-insensitively (as many real servers do), so the exchange can
    // take the case of the question.
    expect(mx.answers[0]?.exchange?.toLowerCase()).toBe('mx.example.test');

    const nodata = await resolve('example.test', 'TXT');
    expect(nodata.header.rcode).toBe(0);
    expect(nodata.answers).toEqual([]);
    expect(nodata.authorities).toMatchObject([
      { name: 'example.test', primary: 'ns.example.test', minimum: 60 },
    ]);

    const nxdomain = await resolve('absent.example.test', 'A');
    expect(nxdomain.header.rcode).toBe(3);
    expect(nxdomain.authorities).toMatchObject([{ name: 'example.test', primary: 'ns.example.test' }]);

    expect(server.queries.map((q) => [q.name, q.type, q.transport, q.outcome])).toEqual([
      ['example.test', 'MX', 'tcp', 'NOERROR'],
      ['example.test', 'TXT', 'tcp', 'NODATA'],
      ['absent.example.test', 'A', 'tcp', 'NXDOMAIN'],
    ]);
  });

  it('makes up an SOA for negative answers when the zones hold none', async () => {
    const server = await start({ ttl: 77, zones: {} });
    const reply = await tcpClientFor(server)('a.b.example.test', 'A');
    expect(reply.header.rcode).toBe(3);
    expect(reply.authorities).toMatchObject([{ name: 'example.test', ttl: 77, minimum: 77 }]);
  });

  it('serves answers too large for UDP over TCP after a truncated UDP reply', async () => {
    const addresses = Array.from({ length: 60 }, (_, i) => `127.0.1.${i}`);
    const server = await start({ zones: { 'many.test': { A: addresses } } });
    expect(await resolverFor(server).resolve4('many.test')).toEqual(addresses);
    expect(server.queries.map((q) => q.transport)).toEqual(['udp', 'tcp']);
  });
});

describe('run-time changes', () => {
  it('setZone adds and replaces names, removeZone makes them NXDOMAIN', async () => {
    const server = await start({ zones: { 'example.test': { A: ['127.0.0.2'] } } });
    const resolver = resolverFor(server);

    server.setZone('EXAMPLE.test.', { A: ['127.0.0.3'] });
    expect(await resolver.resolve4('example.test')).toEqual(['127.0.0.3']);

    server.setZone('new.test', { MX: [{ priority: 1, exchange: 'mx.new.test' }] });
    expect(await resolver.resolveMx('new.test')).toEqual([{ priority: 1, exchange: 'mx.new.test' }]);

    server.setZone('new.test', 'SERVFAIL');
    await expect(resolver.resolveMx('new.test')).rejects.toMatchObject({ code: 'ESERVFAIL' });

    expect(server.removeZone('example.test')).toBe(true);
    expect(server.removeZone('example.test')).toBe(false);
    await expect(resolver.resolve4('example.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it('setZone validates like the start options and keeps the old entry on error', async () => {
    const server = await start({ zones: { 'example.test': { A: ['127.0.0.2'] } } });
    expect(() => server.setZone('example.test', { A: ['not-an-ip'] })).toThrow(TypeError);
    expect(() => server.setZone('bad name.test', { A: ['127.0.0.2'] })).toThrow(/not a valid domain name/);
    expect(await resolverFor(server).resolve4('example.test')).toEqual(['127.0.0.2']);
  });
});

describe('recording', () => {
  it('records each query with name, type, transport, time and outcome; resetRecords clears them', async () => {
    const server = await start({ zones: { 'example.test': { A: ['127.0.0.2'] } } });
    const resolver = resolverFor(server);
    const before = Date.now();
    await resolver.resolve4('Example.Test');
    await expect(resolver.resolveMx('example.test')).rejects.toMatchObject({ code: 'ENODATA' });
    await expect(resolver.resolveTxt('absent.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });

    const { queries } = server;
    expect(queries.map(({ name, type, transport, outcome }) => ({ name, type, transport, outcome }))).toEqual(
      [
        { name: 'example.test', type: 'A', transport: 'udp', outcome: 'NOERROR' },
        { name: 'example.test', type: 'MX', transport: 'udp', outcome: 'NODATA' },
        { name: 'absent.test', type: 'TXT', transport: 'udp', outcome: 'NXDOMAIN' },
      ],
    );
    for (const query of queries) {
      expect(query.at).toBeGreaterThanOrEqual(before);
      expect(query.at).toBeLessThanOrEqual(Date.now());
    }

    server.resetRecords();
    expect(server.queries).toEqual([]);
    // The same array keeps recording, so a reference taken earlier stays live.
    await resolver.resolve4('example.test');
    expect(queries).toHaveLength(1);
  });

  it('names query types it does not serve', async () => {
    const server = await start({ zones: { 'example.test': { A: ['127.0.0.2'] } } });
    const reply = await tcpClientFor(server)('example.test', 'CAA');
    expect(reply.header.rcode).toBe(0);
    expect(reply.answers).toEqual([]);
    expect(server.queries.map((q) => [q.type, q.outcome])).toEqual([['CAA', 'NODATA']]);
  });
});

describe('close', () => {
  it('releases the port, is idempotent, and drops delayed and unanswered exchanges', async () => {
    const server = await startDnsServer({
      zones: { 'slow.test': { A: ['127.0.0.2'], delayMs: 10_000 }, 'blackhole.test': 'NO_ANSWER' },
    });
    const resolver = resolverFor(server, 5000);
    const pendingUdp = resolver.resolve4('slow.test').then(
      () => 'answered',
      () => 'failed',
    );
    const pendingTcp = tcpClientFor(server)('blackhole.test', 'A').then(
      () => 'answered',
      () => 'failed',
    );
    while (server.queries.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    const timersBefore = activeTimers();

    const start = Date.now();
    await Promise.all([server.close(), server.close()]);
    await server.close();
    // The TCP client loses its connection at once instead of waiting for an idle timeout.
    expect(await pendingTcp).toBe('failed');
    expect(Date.now() - start).toBeLessThan(1000);
    // The 10 s reply timer is gone, so nothing keeps the process alive.
    expect(activeTimers()).toBeLessThan(timersBefore);
    resolver.cancel();
    expect(await pendingUdp).toBe('failed');
    await bindBoth(server.host, server.port);
  });
});
