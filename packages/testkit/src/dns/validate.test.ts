import { describe, expect, it } from 'vitest';
import { type DnsServerOptions, startDnsServer } from './index.js';

// Bad options fail at start with a TypeError that says what is wrong, before any socket opens.
async function startError(options: unknown): Promise<unknown> {
  return startDnsServer(options as DnsServerOptions).then(
    async (server) => {
      await server.close();
      return undefined;
    },
    (error: unknown) => error,
  );
}

describe('option validation', () => {
  it.each([
    ['an MX without exchange', { 'a.test': { MX: [{ priority: 10 }] } }, /"a\.test" MX\[0\]\.exchange/],
    [
      'an MX with a bad priority',
      { 'a.test': { MX: [{ priority: -1, exchange: 'mx.a.test' }] } },
      /priority/,
    ],
    ['MX not an array', { 'a.test': { MX: { priority: 1, exchange: 'mx.a.test' } } }, /MX must be an array/],
    ['an A record that is not IPv4', { 'a.test': { A: ['::1'] } }, /A\[0\] must be an IPv4 address/],
    ['an A record with a leading zero', { 'a.test': { A: ['127.0.0.01'] } }, /IPv4/],
    ['an AAAA record that is not IPv6', { 'a.test': { AAAA: ['127.0.0.1'] } }, /AAAA\[0\] must be an IPv6/],
    ['an AAAA record with a zone id', { 'a.test': { AAAA: ['fe80::1%eth0'] } }, /IPv6/],
    ['a TXT chunk over 255 bytes', { 'a.test': { TXT: [['y'.repeat(256)]] } }, /at most 255 bytes/],
    ['a TXT record that is a number', { 'a.test': { TXT: [42] } }, /TXT\[0\]/],
    ['a CNAME beside other records', { 'a.test': { CNAME: 'b.test', A: ['127.0.0.1'] } }, /CNAME.*A/],
    ['an unknown field', { 'a.test': { MXX: [] } }, /unknown field "MXX"/],
    ['an unknown status', { 'a.test': 'TIMEOUT' }, /'NXDOMAIN', 'SERVFAIL'/],
    ['a bad zone name', { 'a..test': { A: ['127.0.0.1'] } }, /not a valid domain name/],
    ['a label over 63 characters', { [`${'l'.repeat(64)}.test`]: {} }, /not a valid domain name/],
    ['a bad host name target', { 'a.test': { NS: ['ns one.test'] } }, /NS\[0\].*not a valid domain name/],
    ['a name given twice', { 'a.test': {}, 'A.TEST.': {} }, /more than once/],
    ['a negative ttl', { 'a.test': { A: ['127.0.0.1'], ttl: -5 } }, /ttl/],
    ['a negative delay', { 'a.test': { delayMs: -1 } }, /delayMs/],
    ['an unknown failure', { 'a.test': { fail: { MX: 'TIMEOUT' } } }, /fail\.MX/],
    [
      'a failure for an unknown type',
      { 'a.test': { fail: { CAA: 'SERVFAIL' } } },
      /unknown record type "CAA"/,
    ],
    ['an SOA without primary', { 'a.test': { SOA: { admin: 'h.a.test' } } }, /SOA\.primary/],
    ['an SRV without port', { 'a.test': { SRV: [{ priority: 1, weight: 1, target: 's.a.test' }] } }, /port/],
  ])('rejects %s', async (_, zones, message) => {
    const error = await startError({ zones });
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(message);
  });

  it.each([
    ['zones as an array', { zones: [] }, /zones must be an object/],
    ['a host off loopback', { host: '0.0.0.0' }, /loopback/],
    ['a host name', { host: 'localhost' }, /loopback/],
    ['a port out of range', { port: 70000 }, /port/],
    ['a fractional ttl', { ttl: 1.5 }, /ttl/],
    ['a NaN defaultDelayMs', { defaultDelayMs: Number.NaN }, /defaultDelayMs/],
  ])('rejects %s', async (_, options, message) => {
    const error = await startError(options);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(message);
  });

  it('accepts every documented form', async () => {
    const error = await startError({
      zones: {
        '*.a.test': { A: ['127.0.0.1'], AAAA: ['::ffff:127.0.0.1'], ttl: 0, delayMs: 0 },
        'a.test.': { TXT: ['x', ['y', 'z']], SOA: { primary: 'ns.a.test', admin: 'h.a.test' }, fail: {} },
        '_srv._tcp.a.test': { SRV: [{ priority: 0, weight: 0, port: 0, target: '.' }] },
        'gone.test': 'NXDOMAIN',
        'refused.test': 'REFUSED',
      },
    });
    expect(error).toBeUndefined();
  });
});
