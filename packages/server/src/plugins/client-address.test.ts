import type { FastifyPluginAsync } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../testing/test-server.js';
import { trustedProxyMatcher } from './client-address.js';

const whoami: FastifyPluginAsync = async (app) => {
  app.get('/test/whoami', { config: { endpoint: 'health' } }, async (request) => request.clientAddress);
};

describe('client-address plugin', () => {
  let server: TestServer;
  afterEach(async () => {
    await server?.app.close();
  });
  const ask = (remoteAddress: string, xff?: string) =>
    server.app
      .inject({
        method: 'GET',
        url: '/test/whoami',
        remoteAddress,
        headers: xff ? { 'x-forwarded-for': xff } : {},
      })
      .then((r) => r.json());

  it('is the peer, and an untrusted peer cannot claim another address with X-Forwarded-For', async () => {
    server = await createTestServer({ routes: [whoami] });
    expect(await ask('203.0.113.7')).toEqual({ ip: '203.0.113.7', source: 'peer' });
    expect(await ask('203.0.113.7', '8.8.8.8')).toEqual({ ip: '203.0.113.7', source: 'peer' });
    expect(await ask('::ffff:198.51.100.1')).toEqual({ ip: '198.51.100.1', source: 'peer' });
  });

  it('behind trusted proxies: the rightmost X-Forwarded-For address that is not a trusted proxy', async () => {
    server = await createTestServer({
      routes: [whoami],
      options: { trustedProxies: ['10.0.0.0/8', '2001:db8::1'] },
    });
    expect(await ask('10.1.2.3', '81.2.69.142')).toEqual({ ip: '81.2.69.142', source: 'x-forwarded-for' });
    // A client-supplied first entry is not believed past the first untrusted hop.
    expect(await ask('10.1.2.3', '6.6.6.6, 81.2.69.142, 10.9.9.9')).toEqual({
      ip: '81.2.69.142',
      source: 'x-forwarded-for',
    });
    expect(await ask('2001:db8::1', '2a02:1234::5')).toEqual({
      ip: '2a02:1234::5',
      source: 'x-forwarded-for',
    });
    // A trusted proxy that sends no header, or garbage, leaves the peer.
    expect(await ask('10.1.2.3')).toEqual({ ip: '10.1.2.3', source: 'peer' });
    expect(await ask('10.1.2.3', 'not-an-ip')).toEqual({ ip: '10.1.2.3', source: 'peer' });
  });

  it('refuses a trusted-proxy entry that is not an address or range, naming it', () => {
    expect(() => trustedProxyMatcher(['10.0.0.0/33'])).toThrow(
      'trustedProxies: "10.0.0.0/33" is not an IP address or CIDR range',
    );
    expect(() => trustedProxyMatcher(['proxy.local'])).toThrow(
      'trustedProxies: "proxy.local" is not an IP address or CIDR range',
    );
    expect(trustedProxyMatcher(['192.0.2.0/24'])('192.0.2.200')).toBe(true);
    expect(trustedProxyMatcher(['192.0.2.0/24'])('192.0.3.1')).toBe(false);
  });
});
