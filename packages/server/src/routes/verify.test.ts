import { createVerifier, type VerifierOptions } from '@svc/email-verifier';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fleetVerifierOptions, mailLabPerFile } from '../testing/fleet-verifier.js';
import { specError } from '../testing/spec-error.js';
import { createTestServer, type TestServer } from '../testing/test-server.js';

const mx = (exchange: string) => ({ MX: [{ priority: 10, exchange }] });
const ZONES = {
  // The verifier's resolver health canary.
  'canary.test': { A: ['192.0.2.1'] },
  'good.test': mx('mx1.good.test'),
  'mx1.good.test': { A: ['127.0.0.2'] },
  'slow.test': mx('mx.slow.test'),
  'mx.slow.test': { A: ['127.0.0.5'] },
  'gone.test': 'NXDOMAIN',
  'blackhole.test': 'NO_ANSWER',
  // Host names as the providers document them (email-verifier's data/mail-providers.json).
  'filtered.test': {
    MX: [
      { priority: 10, exchange: 'us-smtp-inbound-1.mimecast.com' },
      { priority: 20, exchange: 'filtered-test.mail.protection.outlook.com' },
    ],
  },
  // A new alias domain of a disposable service: on no list, its MX is the service's.
  'new-alias.test': mx('mail.mailinator.com'),
} as const;

let server: TestServer;
const REQ = /^req_[0-9a-z]{36}$/;

async function start(options: { smtp?: VerifierOptions['smtp']; limits?: Record<string, number> } = {}) {
  server = await createTestServer({
    verifier: createVerifier(
      fleetVerifierOptions(lab.dns, lab.fleet, { dnsCache: false, smtp: options.smtp }),
    ),
    options: { limits: options.limits ?? {} },
  });
  return server.account('free');
}

type Keys = Awaited<ReturnType<typeof start>>;

const post = (path: string, key: string, payload: unknown) => server.call('POST', path, key, payload);

const lab = mailLabPerFile({
  zones: ZONES,
  fleet: {
    hosts: ['127.0.0.2', { host: '127.0.0.5', script: { replyDelayMs: { rcpt: 800 } } }],
    script: {
      mailboxes: { 'alice@good.test': 'accept', 'bob@slow.test': 'accept' },
    },
  },
});
afterEach(async () => {
  await server?.app.close();
});

describe('POST /v2/verify/email with a live key (testkit DNS and SMTP)', () => {
  let keys: Keys;
  beforeEach(async () => {
    keys = await start();
  });

  it('answers the spec result with the request id of the response, and bills one unit', async () => {
    const response = await post('/v2/verify/email', keys.liveKey.secret, { email: 'alice@good.test' });
    expect(response.statusCode).toBe(200);
    const body = JSON.parse(response.body);
    expect(body).toMatchObject({
      email: 'alice@good.test',
      deliverable: true,
      state: 'deliverable',
      reasons: ['mailbox_not_probed'],
      is_disposable: false,
      is_catch_all: false,
      mx: { accepts_mail: true, records: ['mx1.good.test'] },
      normalized: 'alice@good.test',
      smtp: null,
    });
    expect(body.request_id).toMatch(REQ);
    expect(body.request_id).toBe(response.headers['x-request-id']);
    expect(lab.fleet.sessions).toHaveLength(0);
    expect(await server.store.usedUnits(keys.account.id, '2026-11')).toBe(1);
  });

  it('names the mail provider and the gateway in front, and calls a domain on a disposable MX disposable', async () => {
    const one = await post('/v2/verify/email', keys.liveKey.secret, { email: 'bob@filtered.test' });
    expect(one.statusCode).toBe(200);
    expect(JSON.parse(one.body).mx).toEqual({
      accepts_mail: true,
      records: ['us-smtp-inbound-1.mimecast.com', 'filtered-test.mail.protection.outlook.com'],
      provider: 'microsoft',
      gateway: 'mimecast',
    });
    const bulk = await post('/v2/verify/email/bulk', keys.liveKey.secret, {
      emails: ['carol@new-alias.test', 'alice@good.test'],
    });
    expect(bulk.statusCode).toBe(200);
    const [alias, good] = JSON.parse(bulk.body).results;
    expect(alias).toMatchObject({
      is_disposable: true,
      state: 'risky',
      mx: { provider: null, gateway: null },
      disposable_match: { entry: 'mailinator.com', source: 'mx', host: 'mail.mailinator.com' },
    });
    expect(alias.reasons).toContain('disposable');
    expect(good).toMatchObject({
      is_disposable: false,
      disposable_match: null,
      mx: { provider: null, gateway: null },
    });
  });

  it('probes the mailbox when asked', async () => {
    const response = await post('/v2/verify/email', keys.liveKey.secret, {
      email: 'alice@good.test',
      options: { probe_mailbox: true },
    });
    expect(response.statusCode).toBe(200);
    const body = JSON.parse(response.body);
    expect(body.state).toBe('deliverable');
    expect(body.smtp).toMatchObject({ host: 'mx1.good.test', code: 250 });
    expect(lab.fleet.sessions.length).toBeGreaterThan(0);
  });

  it('refuses what is not an address, or a domain without MX hints, with 422 unprocessable', async () => {
    expect(
      specError(
        await post('/v2/verify/email', keys.liveKey.secret, { email: 'not-an-address' }),
        422,
        'unprocessable',
      ),
    ).toMatch(/@/);
    expect(
      specError(
        await post('/v2/verify/email', keys.liveKey.secret, { email: 'bob@gone.test' }),
        422,
        'unprocessable',
      ),
    ).toMatch('gone.test has no MX hints: the domain does not exist (NXDOMAIN)');
    expect(await server.store.usedUnits(keys.account.id, '2026-11')).toBe(0);
  });

  it('answers 503 upstream_timeout when DNS does not answer', async () => {
    const message = specError(
      await post('/v2/verify/email', keys.liveKey.secret, { email: 'bob@blackhole.test' }),
      503,
      'upstream_timeout',
    );
    expect(message).toMatch(/DNS lookup for blackhole\.test failed/);
  });

  it('refuses a body without email, or an unknown option, naming the field', async () => {
    expect(
      specError(await post('/v2/verify/email', keys.liveKey.secret, { options: {} }), 400, 'invalid_request'),
    ).toMatch(/email/);
    expect(
      specError(
        await post('/v2/verify/email', keys.liveKey.secret, {
          email: 'alice@good.test',
          options: { probe: true },
        }),
        400,
        'invalid_request',
      ),
    ).toMatch(/probe/);
    expect(lab.fleet.sessions).toHaveLength(0);
  });
});

describe('POST /v2/verify/email deadlines and SMTP timeouts', () => {
  it('gives a probing call the longer deadline: a mailbox answering in 0.8 s is a 200 past the 0.3 s default', async () => {
    const keys = await start({ limits: { requestTimeoutMs: 300, probeRequestTimeoutMs: 5000 } });
    const slow = await post('/v2/verify/email', keys.liveKey.secret, {
      email: 'bob@slow.test',
      options: { probe_mailbox: true },
    });
    expect(slow.statusCode).toBe(200);
    expect(JSON.parse(slow.body).state).toBe('deliverable');
  });

  it('answers an SMTP timeout with 200 and state unknown (smtp_timeout)', async () => {
    const keys = await start({ smtp: { timeoutMs: 300 } });
    const response = await post('/v2/verify/email', keys.liveKey.secret, {
      email: 'bob@slow.test',
      options: { probe_mailbox: true },
    });
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({
      state: 'unknown',
      deliverable: false,
      reasons: ['smtp_timeout'],
    });
  });
});

describe('POST /v2/verify/email/bulk', () => {
  it('answers every address in input order with a summary, and bills one unit per address', async () => {
    const keys = await start();
    const emails = [
      'alice@good.test',
      'not-an-address',
      'bob@gone.test',
      'ALICE@good.test',
      'x@blackhole.test',
    ];
    const response = await post('/v2/verify/email/bulk', keys.liveKey.secret, { emails });
    expect(response.statusCode).toBe(200);
    const body = JSON.parse(response.body);
    expect(body.results.map((result: { email: string }) => result.email)).toEqual(emails);
    expect(body.results.map((result: { state: string }) => result.state)).toEqual([
      'deliverable',
      'undeliverable',
      'undeliverable',
      'deliverable',
      'unknown',
    ]);
    expect(body.results[4].reasons).toContain('dns_error');
    for (const result of body.results) expect(result.request_id).toBe(response.headers['x-request-id']);
    expect(body.summary).toEqual({ total: 5, deliverable: 2, undeliverable: 2, risky: 0, unknown: 1 });
    expect(await server.store.usedUnits(keys.account.id, '2026-11')).toBe(5);
  });

  it('refuses more than 10,000 addresses, or none, with 400', async () => {
    const keys = await start();
    const tooMany = Array.from({ length: 10_001 }, (_, i) => `a${i}@good.test`);
    expect(
      specError(
        await post('/v2/verify/email/bulk', keys.testKey.secret, { emails: tooMany }),
        400,
        'invalid_request',
      ),
    ).toMatch(/emails/);
    expect(
      specError(
        await post('/v2/verify/email/bulk', keys.testKey.secret, { emails: [] }),
        400,
        'invalid_request',
      ),
    ).toMatch(/emails/);
  });

  it('refuses up front (402) a call the month’s allowance cannot cover, verifying nothing', async () => {
    const keys = await start(); // free plan: 1,000 units
    const emails = Array.from({ length: 1_001 }, (_, i) => `a${i}@good.test`);
    const message = specError(
      await post('/v2/verify/email/bulk', keys.liveKey.secret, { emails }),
      402,
      'quota_exceeded',
    );
    expect(message).toMatch(/1001 units/);
    expect(lab.dns.queries).toHaveLength(0);
    expect(await server.store.usedUnits(keys.account.id, '2026-11')).toBe(0);
  });
});

describe('test keys: the sandbox', () => {
  it('answers the magic local parts at any domain without DNS or SMTP, and never bills', async () => {
    const keys = await start();
    const answers: Record<string, [string, string[]]> = {
      'deliverable@example.com': ['deliverable', []],
      'Undeliverable+7@anything.test': ['undeliverable', ['mailbox_not_found']],
      'risky@good.test': ['risky', ['mailbox_full']],
      'catch_all@mailinator.com': ['risky', ['catch_all']],
      'greylisted@gmail.com': ['unknown', ['greylisted']],
      'unknown@example.org': ['unknown', ['smtp_timeout']],
    };
    for (const [email, [state, reasons]] of Object.entries(answers)) {
      const response = await post('/v2/verify/email', keys.testKey.secret, { email });
      expect(response.statusCode, email).toBe(200);
      const body = JSON.parse(response.body);
      expect({ email: body.email, state: body.state, reasons: body.reasons }).toEqual({
        email,
        state,
        reasons,
      });
      expect(body.request_id).toBe(response.headers['x-request-id']);
    }
    const catchAll = JSON.parse(
      (await post('/v2/verify/email', keys.testKey.secret, { email: 'catch_all@x.test' })).body,
    );
    expect(catchAll.is_catch_all).toBe(true);
    expect(catchAll.mx).toEqual({
      accepts_mail: true,
      records: ['mx.sandbox.invalid'],
      provider: null,
      gateway: null,
    });
    expect(lab.dns.queries).toHaveLength(0);
    expect(lab.fleet.sessions).toHaveLength(0);
    expect(await server.store.usedUnits(keys.account.id, '2026-11')).toBe(0);
  });

  it('runs the real offline stages on other addresses, and has magic 422 and 503 answers', async () => {
    const keys = await start();
    const other = JSON.parse(
      (await post('/v2/verify/email', keys.testKey.secret, { email: 'info@gmial.com' })).body,
    );
    expect(other).toMatchObject({ state: 'risky', suggestion: 'gmail.com', is_role_account: true });
    expect(other.reasons).toEqual(
      expect.arrayContaining(['domain_not_checked', 'typo_suggestion', 'role_account']),
    );
    specError(
      await post('/v2/verify/email', keys.testKey.secret, { email: 'not-an-address' }),
      422,
      'unprocessable',
    );
    specError(
      await post('/v2/verify/email', keys.testKey.secret, { email: 'no_mx@example.com' }),
      422,
      'unprocessable',
    );
    specError(
      await post('/v2/verify/email', keys.testKey.secret, { email: 'dns_timeout@example.com' }),
      503,
      'upstream_timeout',
    );
    const bulk = await post('/v2/verify/email/bulk', keys.testKey.secret, {
      emails: ['no_mx@example.com', 'dns_timeout@example.com', 'deliverable@example.com'],
    });
    expect(JSON.parse(bulk.body).summary).toEqual({
      total: 3,
      deliverable: 1,
      undeliverable: 1,
      risky: 0,
      unknown: 1,
    });
    expect(lab.dns.queries).toHaveLength(0);
    expect(await server.store.usedUnits(keys.account.id, '2026-11')).toBe(0);
  });
});
