import { startDnsServer } from '@svc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFORMANCE_ZONES, describeDnsResolver } from '../../testing/describe-dns-resolver.js';
import { startDohBridge } from '../../testing/doh-bridge.js';
import { createDns2Resolver } from './dns2.js';
import { createNodeDnsResolver } from './node-dns.js';

describeDnsResolver('node:dns', ({ host, port }, timeoutMs) =>
  createNodeDnsResolver({ servers: [`${host}:${port}`], timeoutMs, tries: 1 }),
);
describeDnsResolver('dns2 over UDP', ({ host, port }, timeoutMs) =>
  createDns2Resolver({ server: `${host}:${port}`, transport: 'udp', timeoutMs, tries: 1 }),
);
describeDnsResolver('dns2 over TCP', ({ host, port }, timeoutMs) =>
  createDns2Resolver({ server: `${host}:${port}`, transport: 'tcp', timeoutMs, tries: 1 }),
);

describe('dns2 over HTTPS (RFC 8484 POST) through a DoH front of the fake server', () => {
  let close: () => Promise<void>;
  let url: string;
  beforeAll(async () => {
    const dns = await startDnsServer({ zones: CONFORMANCE_ZONES });
    const bridge = await startDohBridge(dns);
    url = bridge.url;
    close = async () => {
      await bridge.close();
      await dns.close();
    };
  });
  afterAll(() => close());

  it('answers MX, A, NXDOMAIN and SERVFAIL like the other transports', async () => {
    const resolver = createDns2Resolver({ server: url, timeoutMs: 1000, tries: 1 });
    expect((await resolver.mx('example.test')).records).toHaveLength(2);
    expect((await resolver.a('mx1.example.test')).records).toEqual(['127.0.0.2']);
    await expect(resolver.mx('gone.test')).rejects.toMatchObject({ kind: 'not_found' });
    await expect(resolver.mx('broken.test')).rejects.toMatchObject({ kind: 'server_failure' });
  });
});

describe('resolver backend options', () => {
  it.each([
    [() => createDns2Resolver({ server: '127.0.0.1' }), 'server must be "host:port"'],
    [() => createDns2Resolver({ server: '127.0.0.1:99999' }), 'server must be "host:port"'],
    [() => createDns2Resolver({ server: '127.0.0.1:53', transport: 'doh' }), 'DoH needs an http(s) URL'],
    [
      () => createDns2Resolver({ server: '127.0.0.1:53', timeoutMs: 0 }),
      'timeoutMs must be a positive integer',
    ],
    [() => createNodeDnsResolver({ tries: 0 }), 'tries must be a positive integer'],
  ])('rejects bad options with a clear message (%#)', (make, message) => {
    expect(make).toThrow(message);
  });
});
