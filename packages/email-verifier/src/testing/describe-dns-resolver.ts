import { type FakeDnsServer, startDnsServer } from '@svc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DnsQueryError, type DnsResolver } from '../dns/resolver.js';

/** Builds the resolver under test, pointed at the fake DNS server. */
export type ResolverFactory = (server: { host: string; port: number }, timeoutMs: number) => DnsResolver;

/** The zones every DnsResolver backend must answer alike. */
export const CONFORMANCE_ZONES = {
  'example.test': {
    MX: [
      { priority: 20, exchange: 'mx2.example.test' },
      { priority: 10, exchange: 'mx1.example.test' },
    ],
  },
  'mx1.example.test': { A: ['127.0.0.2'], AAAA: ['2001:db8::2'] },
  'nullmx.test': { MX: [{ priority: 0, exchange: '.' }] },
  'nomx.test': { A: ['192.0.2.10'] },
  'gone.test': 'NXDOMAIN',
  'broken.test': 'SERVFAIL',
  'blackhole.test': 'NO_ANSWER',
} as const;

/**
 * The shared conformance suite of DnsResolver backends: run once per backend against the
 * testkit DNS server, so every backend reports answers and failures the same way.
 */
export function describeDnsResolver(name: string, factory: ResolverFactory): void {
  describe(`DnsResolver conformance: ${name}`, () => {
    let server: FakeDnsServer;
    let resolver: DnsResolver;
    beforeAll(async () => {
      server = await startDnsServer({ zones: CONFORMANCE_ZONES });
      resolver = factory({ host: server.host, port: server.port }, 300);
    });
    afterAll(async () => {
      await server.close();
    });

    it('returns MX records with their preferences', async () => {
      const answer = await resolver.mx('example.test');
      expect([...answer.records].sort((a, b) => a.priority - b.priority)).toEqual([
        { priority: 10, exchange: 'mx1.example.test' },
        { priority: 20, exchange: 'mx2.example.test' },
      ]);
    });

    it('returns a null MX as the empty exchange', async () => {
      expect((await resolver.mx('nullmx.test')).records).toEqual([{ priority: 0, exchange: '' }]);
    });

    it('returns A and AAAA addresses', async () => {
      expect((await resolver.a('mx1.example.test')).records).toEqual(['127.0.0.2']);
      expect((await resolver.aaaa('mx1.example.test')).records).toEqual(['2001:db8::2']);
    });

    it('answers NODATA with an empty list, not an error', async () => {
      expect((await resolver.mx('nomx.test')).records).toEqual([]);
      expect((await resolver.aaaa('nomx.test')).records).toEqual([]);
    });

    it('reports NXDOMAIN as not_found', async () => {
      const error = await resolver.mx('gone.test').catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(DnsQueryError);
      expect(error).toMatchObject({ kind: 'not_found', domain: 'gone.test', type: 'MX', temporary: false });
      await expect(resolver.a('absent.test')).rejects.toMatchObject({ kind: 'not_found' });
    });

    it('reports SERVFAIL as a temporary server_failure', async () => {
      await expect(resolver.mx('broken.test')).rejects.toMatchObject({
        kind: 'server_failure',
        temporary: true,
      });
    });

    it('reports a server that never answers as a timeout, in bounded time', async () => {
      const started = performance.now();
      await expect(resolver.mx('blackhole.test')).rejects.toMatchObject({ kind: 'timeout', temporary: true });
      expect(performance.now() - started).toBeLessThan(3000);
    });
  });
}
