import { promises as dns } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeDnsServer, startDnsServer } from './index.js';

// The record types as node:dns (c-ares, the same client a verifier uses) sees them over UDP.
let server: FakeDnsServer;
let resolver: dns.Resolver;

beforeAll(async () => {
  server = await startDnsServer({
    ttl: 120,
    zones: {
      'example.test': {
        MX: [
          { priority: 20, exchange: 'mx2.example.test' },
          { priority: 10, exchange: 'mx1.example.test.' },
        ],
        TXT: ['v=spf1 -all', ['part one ', 'part two'], 'x'.repeat(300)],
        NS: ['ns1.example.test', 'ns2.example.test'],
        SOA: { primary: 'ns1.example.test', admin: 'hostmaster.example.test', serial: 2024, minimum: 30 },
      },
      'mx1.example.test': { A: ['127.0.0.2', '127.0.0.3'], AAAA: ['::1', '2001:db8::ffff:1.2.3.4'], ttl: 42 },
      'www.example.test': { CNAME: 'example-web.test' },
      'example-web.test': { A: ['127.0.0.7'] },
      'outside.example.test': { CNAME: 'elsewhere.invalid' },
      'nullmx.test': { MX: [{ priority: 0, exchange: '.' }] },
      '_sip._tcp.example.test': { SRV: [{ priority: 1, weight: 5, port: 5060, target: 'sip.example.test' }] },
      '2.0.0.127.in-addr.arpa': { PTR: ['mx1.example.test'] },
      'Mixed.CASE.test.': { A: ['127.0.0.4'] },
      '*.wild.test': { A: ['127.0.0.5'] },
      'exact.wild.test': { A: ['127.0.0.6'] },
      'bücher.test': { A: ['127.0.0.8'] },
    },
  });
  resolver = new dns.Resolver({ timeout: 2000, tries: 1 });
  resolver.setServers([server.address]);
});

afterAll(() => server.close());

describe('record types through node:dns', () => {
  it('serves MX records in the order and with the priorities given', async () => {
    expect(await resolver.resolveMx('example.test')).toEqual([
      { priority: 20, exchange: 'mx2.example.test' },
      { priority: 10, exchange: 'mx1.example.test' },
    ]);
  });

  it('serves A and AAAA records, with the name TTL over the server TTL', async () => {
    expect(await resolver.resolve4('mx1.example.test', { ttl: true })).toEqual([
      { address: '127.0.0.2', ttl: 42 },
      { address: '127.0.0.3', ttl: 42 },
    ]);
    expect(await resolver.resolve6('mx1.example.test')).toEqual(['::1', '2001:db8::ffff:102:304']);
    expect(await resolver.resolve4('example-web.test', { ttl: true })).toEqual([
      { address: '127.0.0.7', ttl: 120 },
    ]);
  });

  it('serves TXT records as character-strings, splitting long strings at 255 bytes', async () => {
    expect(await resolver.resolveTxt('example.test')).toEqual([
      ['v=spf1 -all'],
      ['part one ', 'part two'],
      ['x'.repeat(255), 'x'.repeat(45)],
    ]);
  });

  it('answers a CNAME query with the alias and an A query with the chain', async () => {
    expect(await resolver.resolveCname('www.example.test')).toEqual(['example-web.test']);
    expect(await resolver.resolve4('www.example.test')).toEqual(['127.0.0.7']);
  });

  it('answers only the CNAME when its target is outside the zones', async () => {
    expect(await resolver.resolveCname('outside.example.test')).toEqual(['elsewhere.invalid']);
    // c-ares finds no A record at the end of the chain in the answer and reports none.
    expect(await resolver.resolve4('outside.example.test')).toEqual([]);
  });

  it('serves an RFC 7505 null MX, which node reports as an empty exchange', async () => {
    expect(await resolver.resolveMx('nullmx.test')).toEqual([{ priority: 0, exchange: '' }]);
  });

  it('serves NS, SOA, SRV and PTR records', async () => {
    expect(await resolver.resolveNs('example.test')).toEqual(['ns1.example.test', 'ns2.example.test']);
    expect(await resolver.resolveSoa('example.test')).toEqual({
      nsname: 'ns1.example.test',
      hostmaster: 'hostmaster.example.test',
      serial: 2024,
      refresh: 3600,
      retry: 600,
      expire: 86400,
      minttl: 30,
    });
    expect(await resolver.resolveSrv('_sip._tcp.example.test')).toEqual([
      { priority: 1, weight: 5, port: 5060, name: 'sip.example.test' },
    ]);
    expect(await resolver.reverse('127.0.0.2')).toEqual(['mx1.example.test']);
  });

  it('matches names case-insensitively and tolerates a trailing dot in zones and queries', async () => {
    expect(await resolver.resolve4('mixed.case.test')).toEqual(['127.0.0.4']);
    expect(await resolver.resolve4('MIXED.case.TEST.')).toEqual(['127.0.0.4']);
  });

  it('answers names below a wildcard, unless the name has its own entry', async () => {
    expect(await resolver.resolve4('anything.wild.test')).toEqual(['127.0.0.5']);
    expect(await resolver.resolve4('deeper.anything.wild.test')).toEqual(['127.0.0.5']);
    expect(await resolver.resolve4('exact.wild.test')).toEqual(['127.0.0.6']);
    await expect(resolver.resolve4('wild.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it('serves a Unicode zone name under its A-label', async () => {
    expect(await resolver.resolve4('xn--bcher-kva.test')).toEqual(['127.0.0.8']);
  });
});
