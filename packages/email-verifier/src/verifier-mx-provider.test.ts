import { type FakeDnsServer, startDnsServer } from '@svc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeDnsResolver } from './dns/backends/node-dns.js';
import { createMemoryResultCache } from './result-cache/memory.js';
import { resultCacheVariant } from './result-cache/result-cache.js';
import { createVerifier, type VerificationResult } from './verifier.js';

// Real MX host names as the providers document them (data/mail-providers.json), served by the
// testkit's DNS server for made-up domains.
const ZONES = {
  // The resolver health check's canary.
  'canary.test': { A: ['192.0.2.1'] },
  'workspace.test': {
    MX: [
      { priority: 1, exchange: 'aspmx.l.google.com' },
      { priority: 5, exchange: 'alt1.aspmx.l.google.com' },
    ],
  },
  'm365.test': { MX: [{ priority: 0, exchange: 'm365-test.mail.protection.outlook.com' }] },
  'ses.test': { MX: [{ priority: 10, exchange: 'inbound-smtp.eu-west-1.amazonaws.com' }] },
  'filtered.test': {
    MX: [
      { priority: 10, exchange: 'mx0a-0012.pphosted.com' },
      { priority: 10, exchange: 'mx0b-0012.pphosted.com' },
    ],
  },
  'filtered-google.test': {
    MX: [
      { priority: 10, exchange: 'eu-smtp-inbound-1.mimecast.com' },
      { priority: 20, exchange: 'aspmx.l.google.com' },
    ],
  },
  'selfhosted.test': { MX: [{ priority: 10, exchange: 'mail.selfhosted.test' }] },
  'nxdomain.test': 'NXDOMAIN',
  // A new alias domain of a disposable service, on no list: its MX is the service's host.
  'fresh-alias.test': { MX: [{ priority: 10, exchange: 'mail.mailinator.com' }] },
  'split.test': {
    MX: [
      { priority: 10, exchange: 'mail.selfhosted.test' },
      { priority: 20, exchange: 'mail.mailinator.com' },
    ],
  },
} as const;

let dns: FakeDnsServer;
beforeAll(async () => {
  dns = await startDnsServer({ zones: ZONES });
});
afterAll(() => dns.close());

const verifierWith = (options: Parameters<typeof createVerifier>[0] = {}) =>
  createVerifier({
    dns: createNodeDnsResolver({ servers: [dns.address], timeoutMs: 500, tries: 1 }),
    dnsCache: false,
    resultCache: false,
    resolverHealth: { canaries: ['canary.test'] },
    ...options,
  });

describe('mx.provider and mx.gateway, from the MX host names', () => {
  it.each([
    ['a@workspace.test', 'google', null],
    ['a@m365.test', 'microsoft', null],
    ['a@ses.test', 'amazon_ses', null],
    ['a@filtered.test', null, 'proofpoint'],
    ['a@filtered-google.test', 'google', 'mimecast'],
    ['a@selfhosted.test', null, null],
  ])('%s → provider %s, gateway %s', async (email, provider, gateway) => {
    const result = await verifierWith().verify(email);
    expect(result.mx).toMatchObject({ accepts_mail: true, provider, gateway });
  });

  it('verifyMany names them per domain, and null where DNS found no mail host', async () => {
    const results = await verifierWith().verifyMany([
      'a@workspace.test',
      'b@nxdomain.test',
      'not an address',
    ]);
    expect(results.map((result) => [result.mx.provider, result.mx.gateway])).toEqual([
      ['google', null],
      [null, null],
      [null, null],
    ]);
  });

  it('a cached result stored before results named providers gets them from its MX hosts', async () => {
    const cache = createMemoryResultCache();
    const old = {
      email: 'a@workspace.test',
      state: 'deliverable',
      mx: { accepts_mail: true, records: ['aspmx.l.google.com'] },
    } as unknown as VerificationResult;
    // Stored under the key verify() asks for: the probe variant of the default checks.
    const key = {
      namespace: '',
      address: 'a@workspace.test',
      variant: resultCacheVariant({ probe_mailbox: true, check_disposable: true }),
    };
    const verifier = verifierWith({ resultCache: cache });
    await cache.set([{ key, result: old }], Date.now());
    const served = await verifier.verify('a@workspace.test', { probe_mailbox: true });
    expect(served.cached_at).toBeDefined();
    expect(served.mx).toEqual({
      accepts_mail: true,
      records: ['aspmx.l.google.com'],
      provider: 'google',
      gateway: null,
    });
  });
});

describe('disposable by MX', () => {
  it('a domain on no list whose MX is a disposable service is disposable (risky, reason disposable)', async () => {
    const result = await verifierWith().verify('someone@fresh-alias.test');
    expect(result).toMatchObject({ is_disposable: true, state: 'risky' });
    // The result says why: the MX host that belongs to the disposable service.
    expect(result.disposable_match).toEqual({
      entry: 'mailinator.com',
      source: 'mx',
      host: 'mail.mailinator.com',
    });
    expect(result.reasons).toContain('disposable');
    const [many] = await verifierWith().verifyMany(['someone@fresh-alias.test']);
    expect(many?.is_disposable).toBe(true);
  });

  it('not when the service is only a backup MX, nor with check_disposable off, nor when allowed', async () => {
    expect(await verifierWith().verify('a@split.test')).toMatchObject({
      is_disposable: false,
      disposable_match: null,
    });
    expect(await verifierWith().verify('a@fresh-alias.test', { check_disposable: false })).toMatchObject({
      is_disposable: false,
      disposable_match: null,
    });
    const allowed = verifierWith({ lists: { allowDomains: ['fresh-alias.test'] } });
    const result = await allowed.verify('a@fresh-alias.test');
    expect(result).toMatchObject({ is_disposable: false, state: 'deliverable' });
  });
});

describe('disposable_match', () => {
  it('names the list entry for a listed domain, whatever DNS says', async () => {
    const [listed, sub] = await verifierWith().verifyMany(['a@mailinator.com', 'b@x.mailinator.com']);
    expect(listed?.disposable_match).toEqual({ entry: 'mailinator.com', source: 'builtin' });
    expect(sub?.disposable_match).toEqual({ entry: 'mailinator.com', source: 'builtin' });
  });

  it("names the operator's deny entry", async () => {
    const denied = verifierWith({ lists: { denyDomains: ['workspace.test'] } });
    expect((await denied.verify('a@workspace.test')).disposable_match).toEqual({
      entry: 'workspace.test',
      source: 'deny',
    });
  });
});
