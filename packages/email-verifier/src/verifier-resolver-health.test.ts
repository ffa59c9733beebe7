import { ServiceError } from '@svc/core';
import { type DnsZones, type FakeDnsServer, startDnsServer } from '@svc/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { createNodeDnsResolver } from './dns/backends/node-dns.js';
import { createVerifier } from './verifier.js';
import type { VerifierOptions } from './verifier-options.js';

// A resolver that cannot see the internet, played by the testkit's DNS server: it answers every
// name (the default canaries iana.org, ietf.org, icann.org included) NXDOMAIN, SERVFAIL or nothing.

let dns: FakeDnsServer | undefined;
afterEach(async () => {
  await dns?.close();
  dns = undefined;
});

const MAIL = { MX: [{ priority: 10, exchange: 'mx.good.test' }] };

async function verifierAgainst(zones: DnsZones, extra: VerifierOptions = {}) {
  dns = await startDnsServer({ zones });
  let now = Date.parse('2026-11-27T12:00:00Z');
  const verifier = createVerifier({
    dns: createNodeDnsResolver({ servers: [dns.address], timeoutMs: 300, tries: 1 }),
    clock: () => new Date(now),
    resultCache: false,
    ...extra,
  });
  return { verifier, server: dns, advance: (ms: number) => (now += ms) };
}

const asked = (server: FakeDnsServer) => server.queries.map((query) => `${query.type} ${query.name}`);

describe.each([
  ['NXDOMAIN for every name', { '*': 'NXDOMAIN' } as DnsZones, 'NXDOMAIN'],
  ['SERVFAIL for every name', { '*': 'SERVFAIL' } as DnsZones, 'SERVFAIL'],
  ['silence', { '*': 'NO_ANSWER' } as DnsZones, 'no answer'],
])('a resolver answering %s', (_name, zones, denial) => {
  it('verify() answers 503 upstream_timeout naming the resolver and what it denied, never 422', async () => {
    const { verifier, server } = await verifierAgainst(zones);
    const error = await verifier.verify('alice@gmail.com').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).code).toBe('upstream_timeout');
    expect((error as ServiceError).message).toBe(
      `No verdict on gmail.com: the DNS resolver ${server.address} denies names that exist (${denial} for iana.org, ${denial} for ietf.org, ${denial} for icann.org), so its negative answers cannot be believed. Verification resumes once it resolves its canary names again; svc doctor tells what is wrong.`,
    );
  });

  it('verifyMany() gives every address unknown + dns_unavailable after one check, and asks about no domain', async () => {
    const { verifier, server } = await verifierAgainst(zones);
    const emails = ['a@gmail.com', 'b@yahoo.com', 'c@example.org', 'not an address', 'd@[192.0.2.1]'];
    const results = await verifier.verifyMany(emails, { probe_mailbox: true });
    expect(
      results
        .slice(0, 3)
        .map((result) => [result.state, result.reasons[0], result.mx.accepts_mail, result.mx.records]),
    ).toEqual(Array(3).fill(['unknown', 'dns_unavailable', false, []]));
    // What needs no DNS keeps its verdict.
    expect(results[3]?.reasons).toEqual(['invalid_syntax']);
    expect(results[4]?.reasons).toEqual(['address_literal']);
    // One check (A and AAAA per canary), shared by every address; no MX question.
    expect(asked(server).sort()).toEqual(
      ['A iana.org', 'AAAA iana.org', 'A ietf.org', 'AAAA ietf.org', 'A icann.org', 'AAAA icann.org'].sort(),
    );
    expect(verifier.resolverHealth()?.status).toBe('unhealthy');
  });
});

describe('resolver health over time', () => {
  it('trusts a resolver that recovers again at the next check, and forgets the lies it cached', async () => {
    const { verifier, server, advance } = await verifierAgainst(
      { 'canary.test': 'NXDOMAIN', 'good.test': 'NXDOMAIN' },
      // The DNS cache on (the default), so a cached NXDOMAIN would outlive the recovery.
      { resolverHealth: { canaries: ['canary.test'] } },
    );
    expect((await verifier.verifyMany(['a@good.test']))[0]?.reasons).toEqual(['dns_unavailable']);
    server.setZone('canary.test', { A: ['192.0.2.1'] });
    server.setZone('good.test', MAIL);
    // Within the interval the state stands, without a new check.
    advance(119_000);
    await expect(verifier.verify('a@good.test')).rejects.toThrow('No verdict on good.test');
    expect(asked(server).filter((query) => query.includes('canary.test'))).toHaveLength(2);
    advance(1_000);
    const result = await verifier.verify('a@good.test');
    expect(result).toMatchObject({ state: 'deliverable', reasons: ['mailbox_not_probed'] });
    expect(verifier.resolverHealth()).toMatchObject({
      status: 'healthy',
      checkedAt: Date.parse('2026-11-27T12:02:00Z'),
    });
  });

  it('checks again after a burst of NXDOMAIN: a resolver that starts lying mid-list gives no domain_not_found', async () => {
    const zones: DnsZones = {
      'canary.test': { A: ['192.0.2.1'] },
      ...Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`d${i}.test`, MAIL])),
    };
    const { verifier, server, advance } = await verifierAgainst(zones, {
      resolverHealth: { canaries: ['canary.test'] },
      dnsCache: false,
    });
    expect((await verifier.verifyMany(['a@d0.test']))[0]?.state).toBe('deliverable');
    // Now the resolver loses the internet: every name is NXDOMAIN.
    server.setZone('*', 'NXDOMAIN');
    for (let i = 0; i < 8; i++) server.removeZone(`d${i}.test`);
    server.removeZone('canary.test');
    advance(120_000);
    const results = await verifier.verifyMany(Array.from({ length: 8 }, (_, i) => `a@d${i}.test`));
    expect(results.map((result) => result.reasons[0])).toEqual(Array(8).fill('dns_unavailable'));
  });

  it('keeps ordinary NXDOMAIN answers from a healthy resolver as verdicts', async () => {
    const { verifier } = await verifierAgainst(
      { 'canary.test': { A: ['192.0.2.1'] }, 'good.test': MAIL },
      { resolverHealth: { canaries: ['canary.test'] } },
    );
    const results = await verifier.verifyMany(['a@good.test', 'b@gone.test']);
    expect(results.map((result) => result.reasons[0])).toEqual(['mailbox_not_probed', 'domain_not_found']);
    await expect(verifier.verify('b@gone.test')).rejects.toThrow('gone.test has no MX hints');
  });

  it('resolverHealth: false believes every answer, as before', async () => {
    const { verifier } = await verifierAgainst({ '*': 'NXDOMAIN' }, { resolverHealth: false });
    expect((await verifier.verifyMany(['a@gmail.com']))[0]?.reasons[0]).toBe('domain_not_found');
    expect(verifier.resolverHealth()).toBeNull();
  });
});
