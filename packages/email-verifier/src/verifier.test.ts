import { ServiceError } from '@svc/core';
import {
  type FakeDnsServer,
  fleetProbeOptions,
  type SmtpFleet,
  startDnsServer,
  startSmtpFleet,
} from '@svc/testkit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createNodeDnsResolver } from './dns/backends/node-dns.js';
import {
  createVerifier,
  UnprocessableAddressError,
  type VerificationResult,
  type Verifier,
} from './verifier.js';
import type { VerifierOptions } from './verifier-options.js';

const mx = (host: string, priority = 10) => ({ MX: [{ priority, exchange: host }] });

const ZONES = {
  // The resolver health check's canary (README "Resolver health").
  'canary.test': { A: ['192.0.2.1'] },
  'good.test': mx('mx1.good.test'),
  'mx1.good.test': { A: ['127.0.0.2'] },
  'mx2.good.test': { A: ['127.0.0.3'] },
  'twomx.test': {
    MX: [
      { priority: 10, exchange: 'dead.good.test' },
      { priority: 20, exchange: 'mx2.good.test' },
    ],
  },
  'dead.good.test': { A: ['127.0.0.9'] },
  'busy.test': {
    MX: [
      { priority: 10, exchange: 'busy.good.test' },
      { priority: 20, exchange: 'mx2.good.test' },
    ],
  },
  'busy.good.test': { A: ['127.0.0.4'] },
  'alldead.test': {
    MX: [
      { priority: 10, exchange: 'dead.good.test' },
      { priority: 20, exchange: 'dead2.good.test' },
    ],
  },
  'dead2.good.test': { A: ['127.0.0.10'] },
  'slow.test': mx('slow.good.test'),
  'slow.good.test': { A: ['127.0.0.5'] },
  'ehlo.test': mx('ehlo.good.test'),
  'ehlo.good.test': { A: ['127.0.0.6'] },
  'onercpt.test': mx('onercpt.good.test'),
  'onercpt.good.test': { A: ['127.0.0.7'] },
  'tls.test': mx('tls.good.test'),
  'tls.good.test': { A: ['127.0.0.8'] },
  'catchall.test': mx('mx1.good.test'),
  'nullmx.test': { MX: [{ priority: 0, exchange: '.' }] },
  'implicit.test': { A: ['93.184.216.34'] },
  'private-only.test': { A: ['10.1.2.3'] },
  // The Postfix of issue 10: it refuses our sender's domain at RCPT, for every recipient.
  'postfix.test': mx('pf.good.test'),
  'catchall-pf.test': mx('pf.good.test'),
  'pf.good.test': { A: ['127.0.0.11'] },
  // A server that refuses every recipient alike: it is refusing the session, not the mailbox.
  'refusing.test': mx('mx1.good.test'),
  // Implicit MX (A/AAAA only) on the fleet's loopback address.
  'imp-loopback.test': { A: ['127.0.0.2'] },
  // MX hosts and implicit MX on every kind of non-public address (the security defaults).
  'mx-loopback.test': mx('mx1.good.test'),
  'mx-loopback6.test': mx('loopback6.mx.test'),
  'loopback6.mx.test': { AAAA: ['::1'] },
  'mx-private.test': mx('private.mx.test'),
  'private.mx.test': { A: ['10.1.2.3'] },
  'mx-linklocal.test': mx('linklocal.mx.test'),
  'linklocal.mx.test': { A: ['169.254.10.20'] },
  'mx-cgnat.test': mx('cgnat.mx.test'),
  'cgnat.mx.test': { A: ['100.64.1.2'] },
  'mx-nat64.test': mx('nat64.mx.test'),
  'nat64.mx.test': { AAAA: ['64:ff9b::a01:203'] },
  'imp-private.test': { A: ['192.168.1.20'] },
  'imp-linklocal.test': { A: ['169.254.10.20'] },
  'imp-cgnat.test': { A: ['100.64.1.2'] },
  'imp-nat64.test': { AAAA: ['64:ff9b::7f00:2'] },
  'imp-loopback6.test': { AAAA: ['::1'] },
  'servfail.test': 'SERVFAIL',
  'xn--bcher-kva.test': mx('mx1.good.test'),
  'mailinator.com': mx('mx1.good.test'),
  'gmail.com': mx('mx1.good.test'),
  'gmial.com': mx('mx1.good.test'),
} as const;

/** The sender the Postfix of issue 10 refused: its domain does not resolve. */
const POSTFIX_SENDER = 'probe@unresolvable.test';

let dns: FakeDnsServer;
let fleet: SmtpFleet;
let verifier: Verifier;
const base = (): VerifierOptions => ({
  dns: createNodeDnsResolver({ servers: [dns.address], timeoutMs: 500, tries: 1 }),
  resolverHealth: { canaries: ['canary.test'] },
  dnsCache: false,
  smtp: fleetProbeOptions(fleet),
  // Each test probes what it verifies; the result cache has its own tests (result-cache/).
  resultCache: false,
});

/** The default security settings: only what reaching the fakes needs (DNS server, port, timeouts). */
const secure = (): VerifierOptions => ({
  dns: createNodeDnsResolver({ servers: [dns.address], timeoutMs: 500, tries: 1 }),
  resolverHealth: { canaries: ['canary.test'] },
  dnsCache: false,
  smtp: {
    port: fleet.port,
    heloName: 'verifier.test',
    connectTimeoutMs: 500,
    commandTimeoutMs: 2000,
    timeoutMs: 3000,
    catchAllCacheMs: 0,
  },
  resultCache: false,
});

beforeAll(async () => {
  dns = await startDnsServer({ zones: ZONES });
  fleet = await startSmtpFleet({
    hosts: [
      '127.0.0.2',
      '127.0.0.3',
      { host: '127.0.0.4', script: { greeting: 'busy' } },
      { host: '127.0.0.5', script: { replyDelayMs: { rcpt: 5000 } } },
      { host: '127.0.0.6', script: { ehlo: 'reject', banner: ['one', 'two', 'three'] } },
      { host: '127.0.0.7', script: { maxRcptsPerSession: 1 } },
      { host: '127.0.0.8', script: { tls: 'require' } },
      {
        host: '127.0.0.11',
        script: {
          // Postfix with smtpd_delay_reject (its default) checks the sender at RCPT, so with a
          // sender whose domain it cannot resolve every RCPT gets this, whether alice exists or
          // the domain takes any address.
          defaultRcpt: {
            code: 550,
            text: `5.1.8 <${POSTFIX_SENDER}>: Sender address rejected: Domain not found`,
          },
        },
      },
    ],
    script: {
      mailboxes: {
        'alice@good.test': 'accept',
        'info@good.test': 'accept',
        'full@good.test': 'full',
        'blocked@good.test': 'blocked',
        'grey@good.test': { greylist: { delayMs: 60_000 } },
        'bob@twomx.test': 'accept',
        'bob@busy.test': 'accept',
        'bob@ehlo.test': 'accept',
        'a@onercpt.test': 'accept',
        'b@onercpt.test': 'accept',
        'bob@tls.test': 'accept',
      },
      domains: { 'catchall.test': 'accept', 'refusing.test': 'blocked' },
    },
  });
  verifier = createVerifier(base());
});
afterAll(async () => {
  await fleet.close();
  await dns.close();
});
beforeEach(async () => {
  await fleet.waitForIdle();
  fleet.resetRecords();
  dns.resetRecords();
});

const probe = (email: string) => verifier.verify(email, { probe_mailbox: true });

describe('verify() with an SMTP probe, against the testkit DNS and SMTP servers', () => {
  it('calls an accepting mailbox deliverable, with the spec fields', async () => {
    const result = await probe('alice@good.test');
    expect(result).toMatchObject({
      email: 'alice@good.test',
      deliverable: true,
      state: 'deliverable',
      is_disposable: false,
      is_catch_all: false,
      mx: { accepts_mail: true, records: ['mx1.good.test'] },
      smtp: { host: 'mx1.good.test', code: 250, tls: true },
    });
    expect(result.reasons).toEqual([]);
    expect(result.quality_score).toBeGreaterThan(0.8);
    expect(result.request_id).toMatch(/^req_/);
    expect(new Date(result.checked_at).toISOString()).toBe(result.checked_at);
    expect(fleet.sessions.some((session) => session.dataAttempted)).toBe(false);
  });

  it.each([
    ['nobody@good.test', 'undeliverable', 'mailbox_not_found'],
    ['grey@good.test', 'unknown', 'greylisted'],
    ['blocked@good.test', 'unknown', 'blocked_by_policy'],
    ['full@good.test', 'risky', 'mailbox_full'],
  ] as const)('%s → %s with reason %s', async (email, state, reason) => {
    const result = await probe(email);
    expect(result.state).toBe(state);
    expect(result.reasons).toContain(reason);
    expect(result.deliverable).toBe(false);
  });

  it('calls a catch-all domain risky with is_catch_all', async () => {
    const result = await probe('whoever@catchall.test');
    expect(result).toMatchObject({ state: 'risky', is_catch_all: true });
    expect(result.reasons).toContain('catch_all');
  });

  it('tries the next MX after a 421 greeting and after a refused connection', async () => {
    expect(await probe('bob@busy.test')).toMatchObject({
      state: 'deliverable',
      smtp: { host: 'mx2.good.test' },
    });
    expect(fleet.sessionsFor('127.0.0.4')).toHaveLength(1);
    expect(await probe('bob@twomx.test')).toMatchObject({
      state: 'deliverable',
      smtp: { host: 'mx2.good.test' },
    });
  });

  it('reports unknown + smtp_unreachable when every MX is dead', async () => {
    const result = await probe('bob@alldead.test');
    expect(result.state).toBe('unknown');
    expect(result.reasons).toContain('smtp_unreachable');
  });

  it('returns unknown + smtp_timeout within the deadline when the server is slower', async () => {
    const slow = createVerifier({ ...base(), smtp: { ...base().smtp, timeoutMs: 500 } });
    const result = await slow.verify('bob@slow.test', { probe_mailbox: true });
    // The MX answers RCPT after 5 s: smtp_timeout says the 500 ms limit ended the wait.
    expect(result.state).toBe('unknown');
    expect(result.reasons).toContain('smtp_timeout');
  });

  it('falls back to HELO after a rejected EHLO and reads multi-line banners', async () => {
    expect((await probe('bob@ehlo.test')).state).toBe('deliverable');
    expect(fleet.sessionsFor('127.0.0.6')[0]?.commands.slice(0, 2)).toEqual([
      'EHLO verifier.test',
      'HELO verifier.test',
    ]);
  });

  it('gives correct answers from a server that allows one RCPT per session', async () => {
    const results = await verifier.verifyMany(['a@onercpt.test', 'b@onercpt.test', 'c@onercpt.test'], {
      probe_mailbox: true,
    });
    expect(results.map((result) => result.state)).toEqual(['deliverable', 'deliverable', 'undeliverable']);
  });

  it('uses STARTTLS when offered, also where the server requires it', async () => {
    expect((await probe('bob@tls.test')).smtp?.tls).toBe(true);
    expect(fleet.sessionsFor('127.0.0.8')[0]?.tls).toBe(true);
  });

  it('opens no SMTP connection when probe_mailbox is false', async () => {
    const result = await verifier.verify('alice@good.test');
    expect(result.state).toBe('deliverable');
    expect(result.reasons).toEqual(['mailbox_not_probed']);
    expect(fleet.sessions).toHaveLength(0);
    // Unprobed, the score is capped below what a probe that saw the mailbox earns.
    expect(result.quality_score).toBeLessThan((await probe('alice@good.test')).quality_score);
  });
});

describe('verify() DNS outcomes', () => {
  const unprocessable = async (email: string) => {
    const error = await verifier.verify(email).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnprocessableAddressError);
    expect(error).toMatchObject({ code: 'unprocessable', status: 422 });
    return error as UnprocessableAddressError;
  };

  it('null MX → 422 with the classified result (null_mx)', async () => {
    const error = await unprocessable('a@nullmx.test');
    expect(error.message).toContain('null MX');
    expect(error.result).toMatchObject({ state: 'undeliverable', mx: { accepts_mail: false } });
    expect(error.result.reasons).toContain('null_mx');
  });

  it('NXDOMAIN → 422 (domain_not_found)', async () => {
    expect((await unprocessable('a@gone.test')).result.reasons).toContain('domain_not_found');
  });

  it('no MX and only a private A record → 422 (no_mx_records) unless private addresses are allowed', async () => {
    const error = await createVerifier(secure())
      .verify('a@private-only.test')
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnprocessableAddressError);
    expect((error as UnprocessableAddressError).result.reasons).toContain('no_mx_records');
    // With smtp.allowPrivateAddresses (the shared verifier's setting) it is the implicit MX.
    expect((await verifier.verify('a@private-only.test')).mx).toEqual({
      accepts_mail: true,
      records: ['private-only.test'],
      provider: null,
      gateway: null,
    });
  });

  it('probes an implicit MX on a private address when smtp.allowPrivateAddresses is on', async () => {
    const result = await probe('alice@imp-loopback.test');
    expect(result).toMatchObject({
      state: 'undeliverable',
      mx: { accepts_mail: true, records: ['imp-loopback.test'] },
      smtp: { host: 'imp-loopback.test', code: 550, enhanced_status: '5.1.1' },
    });
    expect(
      fleet.sessionsFor('127.0.0.2').flatMap((session) => session.rcpts.map((rcpt) => rcpt.address)),
    ).toContain('alice@imp-loopback.test');
  });

  it('no MX but a public A record → the implicit MX is used', async () => {
    expect((await verifier.verify('a@implicit.test')).mx).toEqual({
      accepts_mail: true,
      records: ['implicit.test'],
      provider: null,
      gateway: null,
    });
  });

  it('SERVFAIL → upstream_timeout, retryable', async () => {
    const error = await verifier.verify('a@servfail.test').catch((caught: unknown) => caught);
    expect(ServiceError.is(error)).toBe(true);
    expect(error).toMatchObject({ code: 'upstream_timeout', status: 503, retryable: true });
  });

  it('queries IDN domains as punycode', async () => {
    const result = await verifier.verify('jörg@bücher.test'.replace('jörg', 'joerg'));
    expect(result.normalized).toBe('joerg@xn--bcher-kva.test');
    expect(dns.queries.map((query) => query.name)).toContain('xn--bcher-kva.test');
  });
});

describe('reading refusals that are not about the mailbox, end to end', () => {
  it('reports the Postfix sender refusal at RCPT (550 5.1.8) as unknown, for a mailbox and a catch-all domain', async () => {
    const postfix = createVerifier({ ...base(), smtp: { ...base().smtp, mailFrom: POSTFIX_SENDER } });
    const results = await postfix.verifyMany(['alice@postfix.test', 'whoever@catchall-pf.test'], {
      probe_mailbox: true,
    });
    for (const result of results) {
      expect(result.state).toBe('unknown');
      expect(result.reasons[0]).toBe('sender_rejected');
      expect(result.smtp).toMatchObject({ host: 'pf.good.test', code: 550, enhanced_status: '5.1.8' });
      // Nothing was learnt about the domain either: not a catch-all, not "not a catch-all".
      expect(result.is_catch_all).toBe(false);
    }
    expect(fleet.sessionsFor('127.0.0.11')[0]?.commands).toContain(`MAIL FROM:<${POSTFIX_SENDER}>`);
  });

  it('reads the same refusal for the real and the synthetic recipient as a refusal of the sender', async () => {
    // refusing.test answers every RCPT `554 5.7.1 <rcpt>: Recipient address rejected: Access denied`.
    const result = await probe('anyone@refusing.test');
    expect(result).toMatchObject({ state: 'unknown', smtp: { code: 554, enhanced_status: '5.7.1' } });
    expect(result.reasons).toEqual(['sender_rejected']);
    const asked = fleet.sessions.flatMap((session) => session.rcpts.map((rcpt) => rcpt.address));
    expect(asked).toHaveLength(2);
    // The same refusal for one mailbox only (the synthetic one was told 5.1.1) stays a policy block.
    expect((await probe('blocked@good.test')).reasons).toEqual(['blocked_by_policy']);
  });
});

describe('security defaults: nothing private is ever contacted without smtp.allowPrivateAddresses', () => {
  let secureVerifier: Verifier;
  beforeAll(() => {
    secureVerifier = createVerifier(secure());
  });

  it.each([
    ['loopback (127.0.0.2, where the fake MTA listens)', 'mx-loopback.test'],
    ['IPv6 loopback', 'mx-loopback6.test'],
    ['private (10/8)', 'mx-private.test'],
    ['link-local', 'mx-linklocal.test'],
    ['CGNAT (100.64/10)', 'mx-cgnat.test'],
    ['NAT64-wrapped private (64:ff9b::10.1.2.3)', 'mx-nat64.test'],
  ])('never connects to an MX host on a %s address', async (_kind, domain) => {
    const result = await secureVerifier.verify(`alice@${domain}`, { probe_mailbox: true });
    expect(result).toMatchObject({ state: 'unknown', mx: { accepts_mail: true } });
    expect(result.reasons).toEqual(['smtp_unreachable']);
    // Dropped before any connection: no connect error, no timeout, and no session at the fake MTA.
    expect(result.smtp?.message).toBe('no usable address');
    await fleet.waitForIdle();
    expect(fleet.sessions).toHaveLength(0);
  });

  it.each([
    ['loopback', 'imp-loopback.test'],
    ['IPv6 loopback', 'imp-loopback6.test'],
    ['private (192.168/16)', 'imp-private.test'],
    ['link-local', 'imp-linklocal.test'],
    ['CGNAT', 'imp-cgnat.test'],
    ['NAT64-wrapped loopback (64:ff9b::127.0.0.2)', 'imp-nat64.test'],
  ])('never takes an implicit MX (A/AAAA only) on a %s address', async (_kind, domain) => {
    const error = await secureVerifier
      .verify(`alice@${domain}`, { probe_mailbox: true })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnprocessableAddressError);
    expect((error as UnprocessableAddressError).result.reasons).toEqual(['no_mx_records']);
    const [many] = await secureVerifier.verifyMany([`bob@${domain}`], { probe_mailbox: true });
    expect(many?.reasons).toEqual(['no_mx_records']);
    await fleet.waitForIdle();
    expect(fleet.sessions).toHaveLength(0);
  });

  it.each(['alice@[127.0.0.2]', 'alice@[IPv6:::1]', 'alice@[93.184.216.34]'])(
    'never probes the address literal %s (nor looks it up)',
    async (email) => {
      const result = await secureVerifier.verify(email, { probe_mailbox: true });
      expect(result).toMatchObject({ state: 'unknown', reasons: ['address_literal'], smtp: null });
      const [many] = await secureVerifier.verifyMany([email], { probe_mailbox: true });
      expect(many).toMatchObject({ state: 'unknown', reasons: ['address_literal'], smtp: null });
      // Not even with private addresses allowed: a literal names no MX.
      expect((await verifier.verify(email, { probe_mailbox: true })).reasons).toEqual(['address_literal']);
      await fleet.waitForIdle();
      expect(dns.queries).toHaveLength(0);
      expect(fleet.sessions).toHaveLength(0);
    },
  );
});

describe('verify() lists and syntax', () => {
  it('flags a disposable domain and a subdomain of one as risky, unless check_disposable is false', async () => {
    expect(await verifier.verify('x@mailinator.com')).toMatchObject({ state: 'risky', is_disposable: true });
    expect((await verifier.verify('x@mailinator.com')).reasons).toContain('disposable');
    const off = await verifier.verify('x@mailinator.com', { check_disposable: false });
    expect(off.is_disposable).toBe(false);
    expect(off.reasons).not.toContain('disposable');
  });

  it('marks role accounts and free providers as reasons, not verdicts', async () => {
    const role = await verifier.verify('info@good.test');
    expect(role.is_role_account).toBe(true);
    expect(role.reasons).toContain('role_account');
    const free = await verifier.verify('someone@gmail.com');
    expect(free).toMatchObject({ is_free_provider: true, state: 'deliverable' });
  });

  it('suggests gmail.com for gmial.com', async () => {
    const result = await verifier.verify('someone@gmial.com');
    expect(result.suggestion).toBe('gmail.com');
    expect(result.reasons).toContain('typo_suggestion');
  });

  it.each([
    ['a@good.test\r\nRCPT TO:<x@y>', /control|CR|LF/i],
    ['a\u0000@good.test', /control/i],
    [`${'a'.repeat(65)}@good.test`, /64/],
    [`${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.test`, /254/],
    ['not an address', /./],
  ])('rejects %j before any socket is opened', async (email, message) => {
    const error = await verifier.verify(email, { probe_mailbox: true }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'unprocessable' });
    expect((error as Error).message).toMatch(message);
    expect(dns.queries).toHaveLength(0);
    expect(fleet.sessions).toHaveLength(0);
  });

  it.each([
    [{ probe_mailbox: 'yes' }, '"options.probe_mailbox" must be a boolean'],
    [{ check_disposable: 1 }, '"options.check_disposable" must be a boolean'],
    [{ probe_mailbox: true, fresh: 'yes' }, '"options.fresh" must be a boolean'],
    [{ probe: true }, 'unknown option "probe" (expected probe_mailbox, check_disposable, fresh)'],
  ])('rejects malformed options %j with invalid_request', async (options, message) => {
    await expect(verifier.verify('a@good.test', options as never)).rejects.toMatchObject({
      code: 'invalid_request',
      message,
    });
  });

  it('rejects bad construction options by name', () => {
    expect(() => createVerifier({ smtp: { port: 0 } })).toThrow('smtp.port must be 1..65535');
    expect(() => createVerifier({ smtp: { perHostConcurrency: 0 } })).toThrow(
      'smtp.perHostConcurrency must be a positive integer',
    );
    expect(() => createVerifier({ smtp: { heloName: 'bad name\r\n' } })).toThrow('smtp.heloName');
    expect(() => createVerifier({ smtp: { mailFrom: '<x>' } })).toThrow('smtp.mailFrom');
  });
});

describe('verifyMany()', () => {
  it('keeps input order, verifies duplicates once and turns errors into results', async () => {
    const progress: number[] = [];
    const results: VerificationResult[] = await verifier.verifyMany(
      [
        'alice@good.test',
        'not an address',
        'a@nullmx.test',
        'Alice@good.test',
        'alice@good.test',
        'a@servfail.test',
      ],
      { probe_mailbox: true },
      { onProgress: (done) => progress.push(done) },
    );
    expect(results.map((result) => [result.email, result.state])).toEqual([
      ['alice@good.test', 'deliverable'],
      ['not an address', 'undeliverable'],
      ['a@nullmx.test', 'undeliverable'],
      ['Alice@good.test', 'deliverable'],
      ['alice@good.test', 'deliverable'],
      ['a@servfail.test', 'unknown'],
    ]);
    expect(results[1]?.reasons).toContain('invalid_syntax');
    // alice and Alice differ only in case: servers may fold case, so one RCPT covers both.
    expect(
      fleet.sessions.flatMap((session) => session.rcpts.map((rcpt) => rcpt.address.toLowerCase())),
    ).toEqual(['alice@good.test', expect.stringMatching(/@good\.test$/)]);
    // Four distinct addresses once case is folded; progress counts them, not the six inputs.
    expect(progress.at(-1)).toBe(4);
  });

  it('never exceeds the per-MX connection limit and uses far fewer sessions than addresses', async () => {
    const domains = Array.from({ length: 10 }, (_, index) => `shared${index}.test`);
    for (const domain of domains) dns.setZone(domain, mx('mx1.good.test'));
    const emails = domains.flatMap((domain) =>
      Array.from({ length: 100 }, (_, index) => `user${index}@${domain}`),
    );
    const polite = createVerifier({
      ...base(),
      smtp: { ...base().smtp, perHostConcurrency: 3, maxRcptsPerSession: 50 },
    });
    const results = await polite.verifyMany(emails, { probe_mailbox: true });
    expect(results).toHaveLength(1000);
    expect(results.every((result) => result.state === 'undeliverable')).toBe(true);
    expect(fleet.peakConnections('127.0.0.2')).toBeLessThanOrEqual(3);
    // The ten domains share their MX, so they share one queue: 1,000 RCPTs in sessions of 50, the
    // three parallel sessions draining it (so at most two end part-full).
    expect(fleet.sessions.length).toBeLessThanOrEqual(20 + 2);
  });

  it('carries recipients of several domains on one MX in a session, each domain asked about catch-all', async () => {
    for (const domain of ['a.shared.test', 'b.shared.test', 'c.shared.test'])
      dns.setZone(domain, mx('mx1.good.test'));
    const lonely = createVerifier({ ...base(), smtp: { ...base().smtp, perHostConcurrency: 1 } });
    const results = await lonely.verifyMany(['x@a.shared.test', 'x@b.shared.test', 'alice@good.test'], {
      probe_mailbox: true,
    });
    expect(results.map((result) => result.state)).toEqual(['undeliverable', 'undeliverable', 'deliverable']);
    expect(fleet.sessions).toHaveLength(1);
    const asked = fleet.sessions[0]?.rcpts.map((rcpt) => rcpt.address) ?? [];
    expect(asked.slice(0, 3).sort()).toEqual(['alice@good.test', 'x@a.shared.test', 'x@b.shared.test']);
    // Only good.test had a recipient that was not rejected, so only it gets the catch-all question.
    expect(asked).toHaveLength(4);
    expect(asked[3]).toMatch(/@good\.test$/);
    expect(results[2]?.is_catch_all).toBe(false);
  });

  it('groups domains whose equal-preference MX hosts came back in different orders', async () => {
    const domains = Array.from({ length: 8 }, (_, index) => `equal${index}.test`);
    for (const domain of domains)
      dns.setZone(domain, {
        MX: [
          { priority: 10, exchange: 'mx1.good.test' },
          { priority: 10, exchange: 'mx2.good.test' },
        ],
      });
    const lonely = createVerifier({ ...base(), smtp: { ...base().smtp, perHostConcurrency: 1 } });
    const results = await lonely.verifyMany(
      domains.map((domain) => `nobody@${domain}`),
      { probe_mailbox: true },
    );
    expect(results.every((result) => result.state === 'undeliverable')).toBe(true);
    // One group, so one session, whichever of the two hosts came first.
    expect(fleet.sessions).toHaveLength(1);
    expect(fleet.sessions[0]?.rcpts).toHaveLength(8);
  });

  it('lets concurrent calls for domains on one MX share its sessions', async () => {
    for (const domain of ['one.shared.test', 'two.shared.test']) dns.setZone(domain, mx('mx1.good.test'));
    const lonely = createVerifier({ ...base(), smtp: { ...base().smtp, perHostConcurrency: 1 } });
    const [first, second] = await Promise.all([
      lonely.verifyMany(['a@one.shared.test', 'b@one.shared.test'], { probe_mailbox: true }),
      lonely.verifyMany(['a@two.shared.test', 'alice@good.test'], { probe_mailbox: true }),
    ]);
    expect(first.map((result) => result.state)).toEqual(['undeliverable', 'undeliverable']);
    expect(second.map((result) => result.state)).toEqual(['undeliverable', 'deliverable']);
    await fleet.waitForIdle();
    // One MX, one connection allowed, two callers: one session carried both (plus the catch-all
    // question for good.test), instead of one session each.
    expect(fleet.sessions).toHaveLength(1);
    expect(fleet.sessions[0]?.rcpts).toHaveLength(5);
  });

  it('remembers a domain’s catch-all answer for catchAllCacheMs, then asks again', async () => {
    let now = Date.parse('2026-11-23T10:00:00Z');
    const remembering = createVerifier({
      ...base(),
      clock: () => new Date(now),
      smtp: { ...base().smtp, catchAllCacheMs: 60_000 },
    });
    const synthetic = () =>
      fleet.sessions.flatMap((session) => session.rcpts).filter((rcpt) => !rcpt.address.startsWith('alice@'));
    const catchAllFlags = async () =>
      (
        await remembering.verifyMany(['alice@good.test', 'anyone@catchall.test'], { probe_mailbox: true })
      ).map((result) => result.is_catch_all);
    expect(await catchAllFlags()).toEqual([false, true]);
    expect(synthetic()).toHaveLength(3); // anyone@catchall.test and one synthetic per domain
    // Answers come back as soon as they are in; the session's QUIT may still be under way.
    await fleet.waitForIdle();
    fleet.resetRecords();
    now += 59_000;
    expect(await catchAllFlags()).toEqual([false, true]);
    expect(synthetic().map((rcpt) => rcpt.address)).toEqual(['anyone@catchall.test']);
    // Answers come back as soon as they are in; the session's QUIT may still be under way.
    await fleet.waitForIdle();
    fleet.resetRecords();
    now += 2_000;
    expect(await catchAllFlags()).toEqual([false, true]);
    expect(synthetic()).toHaveLength(3);
    expect(() => createVerifier({ smtp: { catchAllCacheMs: -1 } })).toThrow(
      'smtp.catchAllCacheMs must be a non-negative integer, got -1',
    );
  });

  it('stops at once when its signal aborts: sessions closed, the call rejected with the reason', async () => {
    const controller = new AbortController();
    const pending = verifier.verifyMany(
      ['a@slow.test', 'b@slow.test', 'alice@good.test'],
      { probe_mailbox: true },
      {
        signal: controller.signal,
      },
    );
    // Cancelled once the slow MX has been asked (it answers 5 s later), not after a guessed delay.
    await expect
      .poll(() =>
        fleet.sessions.some(
          (session) =>
            session.host === '127.0.0.5' && session.commands.some((line) => line.startsWith('RCPT')),
        ),
      )
      .toBe(true);
    controller.abort(new Error('job cancelled'));
    await expect(pending).rejects.toThrow('job cancelled');
    await fleet.waitForIdle();
    // The slow MX never got to answer: the session was closed, not left to run for 5 s (that is
    // the proof it stopped at once; no timing asserted).
    const slowSessions = fleet.sessions.filter((session) => session.host === '127.0.0.5');
    expect(slowSessions).toHaveLength(1);
    expect(
      slowSessions[0]?.replies.some((reply) => reply.code === 250 && reply.lines.join(' ').includes('2.1.5')),
    ).toBe(false);
    await expect(verifier.verifyMany(['a@good.test'], {}, { signal: controller.signal })).rejects.toThrow(
      'job cancelled',
    );
  });

  it('refuses more than 10,000 addresses', async () => {
    await expect(verifier.verifyMany(Array(10_001).fill('a@good.test'))).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'at most 10000 addresses per call, got 10001',
    });
  });
});
