import { promises as dns } from 'node:dns';
import { type FakeDnsServer, startDnsServer } from '@svc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdapterContext } from '../../adapter.js';
import { describeAdapter } from '../../testing/describe-adapter.js';
import { createDnsAdapter } from './dns.js';
import { DNS_SIGNATURES } from './signatures.js';
import { findSpf, spfTargets } from './spf.js';

let server: FakeDnsServer;
let resolver: dns.Resolver;

beforeAll(async () => {
  server = await startDnsServer({
    zones: {
      // Google Workspace mail, SendGrid and HubSpot in SPF, Atlassian and Zoom tokens.
      'acme.test': {
        MX: [
          { priority: 1, exchange: 'ASPMX.L.GOOGLE.COM' },
          { priority: 5, exchange: 'alt1.aspmx.l.google.com' },
        ],
        TXT: [
          'v=spf1 include:_spf.google.com include:sendgrid.net ~include:12345.spf03.hubspotemail.net -all',
          'atlassian-domain-verification=abc123',
          ['ZOOM_verify_', 'Xy7'], // one record in two chunks
          'some unrelated text',
        ],
      },
      // Microsoft 365, and senders behind the company's own SPF include (nested twice).
      'globex.test': {
        MX: [{ priority: 0, exchange: 'globex-test.mail.protection.outlook.com' }],
        TXT: ['MS=ms12345678', 'v=spf1 include:spf.protection.outlook.com include:_spf.globex.test -all'],
      },
      '_spf.globex.test': { TXT: ['v=spf1 include:mailgun.org redirect=_spf2.globex.test'] },
      '_spf2.globex.test': { TXT: ['v=spf1 include:_spf.salesforce.com ?all'] },
      // Nothing recognisable.
      'plain.test': { MX: [{ priority: 10, exchange: 'mail.plain.test' }], TXT: ['v=spf1 mx -all'] },
      'gone.test': 'NXDOMAIN',
      'broken.test': 'SERVFAIL',
      'silent.test': 'NO_ANSWER',
      // An include that fails does not hide what the rest of the record says.
      'halfbroken.test': { TXT: ['v=spf1 include:_spf.halfbroken.test include:spf.mtasv.net -all'] },
      '_spf.halfbroken.test': 'SERVFAIL',
      // Two SPF records are a permerror: neither is read.
      'twospf.test': { TXT: ['v=spf1 include:sendgrid.net -all', 'v=spf1 include:mailgun.org -all'] },
      // A loop of includes ends.
      'loop.test': { TXT: ['v=spf1 include:a.loop.test -all'] },
      'a.loop.test': { TXT: ['v=spf1 include:b.loop.test -all'] },
      'b.loop.test': { TXT: ['v=spf1 include:a.loop.test include:sendgrid.net -all'] },
    },
  });
  resolver = new dns.Resolver({ timeout: 300, tries: 1 });
  resolver.setServers([server.address]);
});

afterAll(async () => {
  await server?.close();
});

function context(signal: AbortSignal = new AbortController().signal): AdapterContext {
  return {
    signal,
    dns: resolver,
    now: () => Date.now(),
    fetch: () => Promise.reject(new Error('the DNS adapter must not fetch')),
  };
}

const adapter = createDnsAdapter();

describe('DNS adapter', () => {
  it('reads MX, SPF includes and verification tokens into technologies', async () => {
    const outcome = await adapter.lookup({ by: 'domain', domain: 'acme.test' }, context());
    expect(outcome.type).toBe('hit');
    if (outcome.type !== 'hit') return;
    expect(outcome.cost).toBe(0);
    expect(outcome.candidates).toHaveLength(1);
    expect(outcome.candidates[0]?.fields.domain).toBe('acme.test');
    expect(outcome.candidates[0]?.confidence).toBe(0.9);
    expect(outcome.candidates[0]?.fields.technologies?.sort()).toEqual(
      ['Atlassian', 'Google Workspace', 'HubSpot', 'SendGrid', 'Zoom'].sort(),
    );
  });

  it('follows the company’s own SPF includes and redirects to find the senders behind them', async () => {
    const outcome = await adapter.lookup({ by: 'domain', domain: 'globex.test' }, context());
    expect(outcome.type).toBe('hit');
    if (outcome.type !== 'hit') return;
    expect(outcome.candidates[0]?.fields.technologies?.sort()).toEqual([
      'Mailgun',
      'Microsoft 365',
      'Salesforce',
    ]);
  });

  it('does not follow a vendor’s include (its vendor is already known)', async () => {
    server.resetRecords();
    await adapter.lookup({ by: 'domain', domain: 'acme.test' }, context());
    expect(server.queries.map((query) => query.name).sort()).toEqual(['acme.test', 'acme.test']);
  });

  it('is a miss for a domain with nothing recognisable, and for a name that does not exist', async () => {
    expect(await adapter.lookup({ by: 'domain', domain: 'plain.test' }, context())).toEqual({
      type: 'miss',
      cost: 0,
    });
    expect(await adapter.lookup({ by: 'domain', domain: 'gone.test' }, context())).toEqual({
      type: 'miss',
      cost: 0,
    });
  });

  it('answers SERVFAIL with an upstream error and silence with a timeout, never a miss', async () => {
    const broken = await adapter.lookup({ by: 'domain', domain: 'broken.test' }, context());
    expect(broken).toMatchObject({ type: 'error', error: { kind: 'upstream' } });
    const silent = await adapter.lookup({ by: 'domain', domain: 'silent.test' }, context());
    expect(silent).toMatchObject({ type: 'error', error: { kind: 'timeout' } });
  });

  it('skips a nested include that fails and keeps the rest', async () => {
    const outcome = await adapter.lookup({ by: 'domain', domain: 'halfbroken.test' }, context());
    expect(outcome).toMatchObject({ type: 'hit' });
    if (outcome.type === 'hit') expect(outcome.candidates[0]?.fields.technologies).toEqual(['Postmark']);
  });

  it('reads no SPF when a domain publishes two (RFC 7208 permerror)', async () => {
    expect(await adapter.lookup({ by: 'domain', domain: 'twospf.test' }, context())).toEqual({
      type: 'miss',
      cost: 0,
    });
  });

  it('ends an include loop and bounds the lookups it spends', async () => {
    const outcome = await adapter.lookup({ by: 'domain', domain: 'loop.test' }, context());
    if (outcome.type !== 'hit') throw new Error(`expected a hit, got ${JSON.stringify(outcome)}`);
    expect(outcome.candidates[0]?.fields.technologies).toEqual(['SendGrid']);

    const stingy = createDnsAdapter({ maxSpfLookups: 1 });
    server.resetRecords();
    expect(await stingy.lookup({ by: 'domain', domain: 'loop.test' }, context())).toEqual({
      type: 'miss',
      cost: 0,
    });
    expect(server.queries.filter((query) => query.name !== 'loop.test')).toHaveLength(1);
  });

  it('returns a timeout error at once when the caller aborts, without waiting for the DNS', async () => {
    // The resolver would wait a minute, past the test's own timeout: only the abort can end it.
    const slow = new dns.Resolver({ timeout: 60_000, tries: 1 });
    slow.setServers([server.address]);
    const controller = new AbortController();
    const pending = adapter.lookup(
      { by: 'domain', domain: 'silent.test' },
      { ...context(controller.signal), dns: slow },
    );
    // Aborted once the question reached the server, not after a guessed delay.
    await expect
      .poll(() => server.queries.some((query) => query.name === 'silent.test'), { timeout: 5_000 })
      .toBe(true);
    controller.abort();
    expect(await pending).toMatchObject({ type: 'error', error: { kind: 'timeout' } });
    slow.cancel();
  });

  it('rejects bad options with a message naming the option', () => {
    expect(() => createDnsAdapter({ maxSpfLookups: -1 })).toThrow(/maxSpfLookups/);
    expect(() => createDnsAdapter({ confidence: 2 })).toThrow(/confidence/);
  });
});

describe('SPF parsing', () => {
  it('takes include and redirect hosts, with qualifiers, and skips macros', () => {
    expect(
      spfTargets('v=spf1 ip4:1.2.3.4 +include:A.test. -include:b.test include:%{d}.x.test redirect=c.test'),
    ).toEqual(['a.test', 'b.test', 'c.test']);
    expect(findSpf(['hello', 'V=SPF1 -all'])).toBe('V=SPF1 -all');
    expect(findSpf(['v=spf10 -all'])).toBeNull();
  });
});

describe('signature table', () => {
  it('has unique names, lower-case hosts and at least one piece of evidence per entry', () => {
    const names = DNS_SIGNATURES.map((signature) => signature.name);
    expect(new Set(names).size).toBe(names.length);
    for (const signature of DNS_SIGNATURES) {
      const hosts = [...(signature.mx ?? []), ...(signature.spf ?? [])];
      expect(hosts.length + (signature.txt?.length ?? 0), signature.name).toBeGreaterThan(0);
      for (const host of hosts) expect(host, signature.name).toMatch(/^[a-z0-9_]([a-z0-9_-]*\.)+[a-z]{2,}$/);
    }
    for (const required of [
      'Google Workspace',
      'Microsoft 365',
      'HubSpot',
      'Salesforce',
      'SendGrid',
      'Mailgun',
      'Atlassian',
      'Slack',
      'Zoom',
    ]) {
      expect(names).toContain(required);
    }
  });
});

describeAdapter('dns', {
  create: () => createDnsAdapter(),
  context: () => ({ dns: resolver }),
  hits: [{ by: 'domain', domain: 'acme.test' }],
  misses: [{ by: 'domain', domain: 'plain.test' }],
  upstreamFailure: {
    query: { by: 'domain', domain: 'broken.test' },
    context: () => ({ dns: resolver }),
    kind: 'upstream',
  },
});
