import { type FakeDnsServer, type SmtpFleet, startDnsServer, startSmtpFleet } from '@svc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, GEO_CITY_FIXTURE, type ServeChild, startServe } from './support/serve-child.js';

// `svc serve` as a child process on an ephemeral port, with the testkit's DNS server and SMTP
// fleet as its internet; every response is checked against the served OpenAPI document.

let dns: FakeDnsServer;
let fleet: SmtpFleet;
let server: ServeChild;
let api: ApiClient;

const month = () => new Date().toISOString().slice(0, 7);

beforeAll(async () => {
  fleet = await startSmtpFleet({
    hosts: ['127.0.0.2'],
    script: { mailboxes: { 'alice@example.test': 'accept' }, defaultRcpt: 'unknown' },
  });
  dns = await startDnsServer({
    zones: {
      // The resolver health check's canary (SVC_DNS_CANARIES).
      'canary.test': { A: ['192.0.2.1'] },
      'example.test': { MX: [{ priority: 10, exchange: 'mx1.example.test' }] },
      'mx1.example.test': { A: ['127.0.0.2'] },
      'nomail.test': 'NXDOMAIN',
      'slowdns.test': { MX: [{ priority: 10, exchange: 'mx1.example.test' }], delayMs: 2_000 },
    },
  });
  server = await startServe({
    env: {
      SVC_DNS: dns.address,
      SVC_DNS_CANARIES: 'canary.test',
      SVC_SMTP_PORT: String(fleet.port),
      SVC_SMTP_ALLOW_PRIVATE_MX: 'true',
      SVC_SMTP_HELO_NAME: 'probe.e2e.test',
      SVC_SMTP_MAIL_FROM: 'probe@e2e.test',
      SVC_GEO_DATABASES: GEO_CITY_FIXTURE,
      SVC_TRUSTED_PROXIES: '127.0.0.1',
      SVC_LIMITS_JSON_BODY_BYTES: '65536',
      // Every request is logged, so the last test can look for secrets in the log.
      SVC_LOG_LEVEL: 'info',
    },
  });
  api = await ApiClient.connect(server.url);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await fleet?.close();
  await dns?.close();
});

describe('first start', () => {
  it('printed the owner account and its keys once, on stderr, never on stdout (the log stream)', () => {
    expect(server.accountId).toMatch(/^acct_/);
    expect(server.liveKey).toMatch(/^sk_live_/);
    expect(server.testKey).toMatch(/^sk_test_/);
    expect(server.webhookSecret).toMatch(/^whsec_/);
    expect(server.stdout()).toMatch(
      /first start: created the owner account acct_\w+; .* printed once on stderr/,
    );
    for (const secret of [server.liveKey, server.testKey, server.webhookSecret]) {
      expect(server.stdout()).not.toContain(secret);
      expect(server.stderr().split(secret)).toHaveLength(2);
    }
  });

  it('serves a valid OpenAPI 3.1 document with API version 2.x.y, and health without a key', async () => {
    expect(api.checker.document.info).toMatchObject({ version: expect.stringMatching(/^2\.\d+\.\d+$/) });
    const health = await api.request<{
      status: string;
      failing: string[];
      checks: { id: string; status: string }[];
      version: string;
      geo: { databases: { type: string; built_at: string | null; source: string }[] };
    }>('GET', '/v2/health');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'ok', failing: [] });
    expect(health.body.checks.map((check) => [check.id, check.status])).toEqual([
      ['control_plane', 'ok'],
      ['dns_resolver', 'ok'],
    ]);
    // Each configured geo database with its type, build date and file (its name only: no key).
    expect(health.body.geo.databases).toEqual([
      {
        id: expect.any(String),
        type: 'GeoIP2-City',
        built_at: expect.stringMatching(/^\d{4}-/),
        source: GEO_CITY_FIXTURE.split('/').at(-1),
      },
    ]);
    expect(health.body.version).toBe(
      api.checker.document.info && (api.checker.document.info as { version: string }).version,
    );
  });
});

describe('errors: only the spec body, with the request id', () => {
  it('an unknown path, /v1, a wrong method → 404 not_found pointing to /v2', async () => {
    const v1 = await api.request<{ error: { code: string; message: string } }>('GET', '/v1/geo/8.8.8.8');
    expect(v1.status).toBe(404);
    expect(v1.body.error.code).toBe('not_found');
    expect(v1.body.error.message).toContain('/v2');
    const unknown = await api.request<{ error: { code: string } }>('GET', '/v2/nothing-here');
    expect(unknown.body.error.code).toBe('not_found');
    const method = await api.request<{ error: { code: string; message: string } }>(
      'PUT',
      '/v2/verify/email',
      {
        key: server.liveKey,
      },
    );
    expect(method.status).toBe(404);
    expect(method.body.error.message).toContain('use POST');
  });

  it('no key, a malformed key, an unknown key → 401 invalid_api_key', async () => {
    for (const key of [undefined, 'nope', `sk_live_${'x'.repeat(40)}`]) {
      const response = await api.request<{ error: { code: string } }>('GET', '/v2/geo/81.2.69.142', {
        ...(key === undefined ? {} : { key }),
      });
      expect(response.status).toBe(401);
      expect(response.body.error.code).toBe('invalid_api_key');
    }
  });

  it('malformed JSON, a missing field (named), a wrong content type → 400 invalid_request', async () => {
    const key = server.liveKey;
    const malformed = await api.request<{ error: { code: string; message: string } }>(
      'POST',
      '/v2/verify/email',
      {
        key,
        body: '{"email":',
        headers: { 'content-type': 'application/json' },
      },
    );
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.message).toMatch(/JSON/);
    const missing = await api.request<{ error: { code: string; message: string } }>(
      'POST',
      '/v2/verify/email',
      {
        key,
        json: {},
      },
    );
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toContain('email');
    const wrongType = await api.request<{ error: { code: string } }>('POST', '/v2/verify/email', {
      key,
      body: 'alice@example.test',
      headers: { 'content-type': 'text/plain' },
    });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error.code).toBe('invalid_request');
  });
});

describe('the body limit (SVC_LIMITS_JSON_BODY_BYTES)', () => {
  it('a JSON body over it → 400 invalid_request naming the limit; one under it is served', async () => {
    const emails = Array.from({ length: 4_000 }, (_, i) => `user${i}@example.com`);
    const large = await api.request<{ error: { code: string; message: string } }>(
      'POST',
      '/v2/verify/email/bulk',
      {
        key: server.testKey,
        json: { emails },
      },
    );
    expect(large.status).toBe(400);
    expect(large.body.error.code).toBe('invalid_request');
    expect(large.body.error.message).toContain('65536 bytes');
    const small = await api.request('POST', '/v2/verify/email/bulk', {
      key: server.testKey,
      json: { emails: emails.slice(0, 100) },
    });
    expect(small.status).toBe(200);
  });
});

describe('email verification over the fake internet', () => {
  it('probes the MX from the testkit DNS: an accepted mailbox is deliverable, another undeliverable', async () => {
    const sessionsBefore = fleet.sessions.length;
    const alice = await api.request<{ state: string; smtp: { code: number } | null }>(
      'POST',
      '/v2/verify/email',
      {
        key: server.liveKey,
        json: { email: 'alice@example.test', options: { probe_mailbox: true } },
      },
    );
    expect(alice.status).toBe(200);
    expect(alice.body.state).toBe('deliverable');
    expect(alice.body.smtp?.code).toBe(250);
    const bob = await api.request<{ state: string }>('POST', '/v2/verify/email', {
      key: server.liveKey,
      json: { email: 'bob@example.test', options: { probe_mailbox: true } },
    });
    expect(bob.body.state).toBe('undeliverable');
    expect(fleet.sessions.length).toBeGreaterThan(sessionsBefore);
    // The configured identity was used.
    expect(fleet.sessions.at(-1)?.commands.join('\n')).toContain('probe.e2e.test');
  });

  it('without a probe: DNS only, no SMTP session, and a domain without mail is undeliverable', async () => {
    const sessionsBefore = fleet.sessions.length;
    const alice = await api.request<{ state: string; mx: { accepts_mail: boolean; records: string[] } }>(
      'POST',
      '/v2/verify/email',
      { key: server.liveKey, json: { email: 'alice@example.test' } },
    );
    expect(alice.status).toBe(200);
    expect(alice.body.mx).toEqual({
      accepts_mail: true,
      records: ['mx1.example.test'],
      provider: null,
      gateway: null,
    });
    const nomail = await api.request<{ state: string }>('POST', '/v2/verify/email', {
      key: server.liveKey,
      json: { email: 'someone@nomail.test' },
    });
    expect(nomail.status).toBeLessThan(500);
    expect(fleet.sessions.length).toBe(sessionsBefore);
  });

  it('bulk: results in input order with a summary', async () => {
    const emails = ['alice@example.test', 'not-an-address', 'bob@example.test'];
    const bulk = await api.request<{
      results: { email: string; state: string }[];
      summary: Record<string, number>;
    }>('POST', '/v2/verify/email/bulk', {
      key: server.liveKey,
      json: { emails, options: { probe_mailbox: true } },
    });
    expect(bulk.status).toBe(200);
    expect(bulk.body.results.map((result) => result.email)).toEqual(emails);
    expect(bulk.body.results.map((result) => result.state)).toEqual([
      'deliverable',
      'undeliverable',
      'undeliverable',
    ]);
    expect(bulk.body.summary).toMatchObject({ total: 3 });
  });

  it('a test key runs in the sandbox: magic answers and no DNS query', async () => {
    const sandbox = await api.request<{ state: string }>('POST', '/v2/verify/email', {
      key: server.testKey,
      json: { email: 'undeliverable@sandbox-single.test', options: { probe_mailbox: true } },
    });
    expect(sandbox.status).toBe(200);
    expect(sandbox.body.state).toBe('undeliverable');
    // By name: a job cancelled earlier may still have a question in flight.
    expect(dns.queries.filter((query) => query.name.includes('sandbox'))).toEqual([]);
  });
});

describe('cancelling a running batch job', () => {
  it('POST /v2/batch/{id}/cancel stops it: cancelled, its records not all processed', async () => {
    const accepted = await api.request<{ id: string }>('POST', '/v2/batch', {
      key: server.liveKey,
      json: { type: 'verify_email', records: ['a@slowdns.test', 'b@slowdns.test'] },
    });
    expect(accepted.status).toBe(202);
    // Wait until its chunk is asking the (slow) DNS server, then cancel.
    const deadline = Date.now() + 10_000;
    while (!dns.queries.some((query) => query.name === 'slowdns.test') && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    const cancelled = await api.request<{ id: string; status: string; processed: number; total: number }>(
      'POST',
      `/v2/batch/${accepted.body.id}/cancel`,
      { key: server.liveKey },
    );
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ id: accepted.body.id, status: 'cancelled', total: 2 });
    expect(cancelled.body.processed).toBeLessThan(2);
    const later = await api.request<{ status: string }>('GET', `/v2/batch/${accepted.body.id}`, {
      key: server.liveKey,
    });
    expect(later.body.status).toBe('cancelled');
  });
});

describe('a verify_email batch job on a test key', () => {
  it('runs in the sandbox: the magic answers, and no DNS query', async () => {
    const records = ['deliverable@sandbox.test', 'undeliverable@sandbox.test', 'catch_all@sandbox.test'];
    const accepted = await api.request<{ id: string }>('POST', '/v2/batch', {
      key: server.testKey,
      json: { type: 'verify_email', records },
    });
    expect(accepted.status).toBe(202);
    const deadline = Date.now() + 15_000;
    let status = '';
    while (status !== 'completed' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (
        await api.request<{ status: string }>('GET', `/v2/batch/${accepted.body.id}`, { key: server.testKey })
      ).body.status;
    }
    expect(status).toBe('completed');
    const results = await api.request<{ data: { result: { state: string } | null }[] }>(
      'GET',
      `/v2/batch/${accepted.body.id}/results`,
      { key: server.testKey },
    );
    expect(results.body.data.map((entry) => entry.result?.state)).toEqual([
      'deliverable',
      'undeliverable',
      'risky',
    ]);
    // By name: a job cancelled earlier may still have a question in flight.
    expect(dns.queries.filter((query) => query.name.includes('sandbox'))).toEqual([]);
  });
});

describe('geolocation', () => {
  it('GET /v2/geo/{ip} answers from the configured database', async () => {
    const geo = await api.request<{ ip: string; country: string; city: string }>(
      'GET',
      '/v2/geo/81.2.69.142',
      {
        key: server.liveKey,
      },
    );
    expect(geo.status).toBe(200);
    expect(geo.body).toMatchObject({
      ip: '81.2.69.142',
      country: 'GB',
      city: 'London',
      // MaxMind's City test record: a 10 km radius, through the server's schema to the wire.
      accuracy_radius_km: 10,
    });
    const invalid = await api.request<{ error: { code: string } }>('GET', '/v2/geo/10.0.0.1', {
      key: server.liveKey,
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.code).toBe('invalid_ip');
  });

  it('GET /v2/geo/me believes X-Forwarded-For from the trusted proxy, and says why a private peer is refused', async () => {
    const me = await api.request<{ ip: string; country: string }>('GET', '/v2/geo/me', {
      key: server.liveKey,
      headers: { 'x-forwarded-for': '81.2.69.142' },
    });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ ip: '81.2.69.142', country: 'GB' });
    const peer = await api.request<{ error: { code: string; message: string } }>('GET', '/v2/geo/me', {
      key: server.liveKey,
    });
    expect(peer.status).toBe(400);
    expect(peer.body.error.code).toBe('invalid_ip');
    expect(peer.body.error.message).toContain('127.0.0.1');
  });
});

describe('keys, tokens, account and usage', () => {
  it('a token minted from the live key works in X-API-Key, and cannot mint tokens', async () => {
    const minted = await api.request<{ token: string; expires_at: string }>('POST', '/v2/tokens', {
      key: server.liveKey,
      json: { ttl_seconds: 600, scopes: ['geo_ip'] },
    });
    expect(minted.status).toBe(201);
    expect(minted.body.token).toMatch(/^tok_/);
    const geo = await api.request('GET', '/v2/geo/81.2.69.142', { key: minted.body.token });
    expect(geo.status).toBe(200);
    const outOfScope = await api.request<{ error: { code: string } }>('POST', '/v2/verify/email', {
      key: minted.body.token,
      json: { email: 'alice@example.test' },
    });
    expect(outOfScope.status).toBeGreaterThanOrEqual(400);
    const again = await api.request<{ error: { code: string } }>('POST', '/v2/tokens', {
      key: minted.body.token,
      json: {},
    });
    expect(again.status).toBeGreaterThanOrEqual(400);
  });

  it('keys: create (secret shown once), list by last four, rotate, revoke → the revoked key is refused', async () => {
    const created = await api.request<{ secret: string; id: string; last4: string }>('POST', '/v2/keys', {
      key: server.liveKey,
      json: { environment: 'live', name: 'e2e' },
    });
    expect(created.status).toBe(201);
    const secret = created.body.secret;
    expect(secret).toMatch(/^sk_live_/);
    const listed = await api.request<{ data: { id: string; last4: string }[] }>('GET', '/v2/keys', {
      key: server.liveKey,
    });
    expect(listed.text).not.toContain(secret);
    expect(listed.text).toContain(secret.slice(-4));
    expect((await api.request('GET', '/v2/account', { key: secret })).status).toBe(200);
    const keyId = created.body.id;
    const rotated = await api.request<{ secret: string; id: string; previous: { id: string } }>(
      'POST',
      `/v2/keys/${keyId}/rotate`,
      {
        key: server.liveKey,
        json: { grace_seconds: 0 },
      },
    );
    expect(rotated.status).toBe(201);
    expect((await api.request('GET', '/v2/account', { key: rotated.body.secret })).status).toBe(200);
    expect((await api.request('GET', '/v2/account', { key: secret })).status).toBe(401);
    expect(rotated.body.previous.id).toBe(keyId);
    expect((await api.request('DELETE', `/v2/keys/${rotated.body.id}`, { key: server.liveKey })).status).toBe(
      200,
    );
    expect((await api.request('GET', '/v2/account', { key: rotated.body.secret })).status).toBe(401);
  });

  it('GET /v2/account shows the plan; GET /v2/usage bills live calls only, by endpoint', async () => {
    const account = await api.request<{ id: string; plan: { id: string } }>('GET', '/v2/account', {
      key: server.liveKey,
    });
    expect(account.status).toBe(200);
    expect(account.body.id).toBe(server.accountId);
    const before = await api.request<{ lines: { endpoint: string; units: number }[] }>(
      'GET',
      `/v2/usage?month=${month()}`,
      { key: server.liveKey },
    );
    const units = (body: { lines: { endpoint: string; units: number }[] }, endpoint: string) =>
      body.lines.find((line) => line.endpoint === endpoint)?.units ?? 0;
    await api.request('GET', '/v2/geo/81.2.69.142', { key: server.liveKey });
    await api.request('GET', '/v2/geo/81.2.69.142', { key: server.testKey });
    const after = await api.request<{
      lines: { endpoint: string; units: number }[];
      total: { units: number };
    }>('GET', `/v2/usage?month=${month()}`, { key: server.liveKey });
    expect(units(after.body, 'geo_ip') - units(before.body, 'geo_ip')).toBe(1);
    expect(units(after.body, 'verify_email_bulk')).toBe(3);
  });
});

describe('limits from configuration (a second server with --config, owner on a small plan)', () => {
  let small: ServeChild;
  let configDir = '';
  let smallApi: ApiClient;
  beforeAll(async () => {
    // The plan comes from a config file (--config), one setting from the environment over it.
    const { mkdtemp, writeFile } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    configDir = await mkdtemp(join(tmpdir(), 'svc-e2e-config-'));
    const config = join(configDir, 'svc.json');
    await writeFile(
      config,
      JSON.stringify({
        ownerPlan: 'tiny',
        plans: {
          tiny: { name: 'Tiny', rate_per_second: 0.2, burst: 4, monthly_allowance: 2, endpoints: ['geo_ip'] },
        },
        limits: { authFailuresPerMinute: 50 },
        geo: { databases: [GEO_CITY_FIXTURE] },
      }),
    );
    small = await startServe({
      args: ['--config', config],
      env: { SVC_LIMITS_AUTH_FAILURES_PER_MINUTE: '3' },
    });
    smallApi = await ApiClient.connect(small.url);
  }, 60_000);
  afterAll(async () => {
    await small?.stop();
    if (configDir) await (await import('node:fs/promises')).rm(configDir, { recursive: true, force: true });
  });

  it('403 endpoint_not_in_plan, 402 quota_exceeded with X-Quota-*, 429 rate_limited with Retry-After', async () => {
    const key = small.liveKey;
    const gated = await smallApi.request<{ error: { code: string } }>('POST', '/v2/verify/email', {
      key,
      json: { email: 'a@b.test' },
    });
    expect(gated.status).toBe(403);
    expect(gated.body.error.code).toBe('endpoint_not_in_plan');
    for (let i = 0; i < 2; i++)
      expect((await smallApi.request('GET', '/v2/geo/81.2.69.142', { key })).status).toBe(200);
    const quota = await smallApi.request<{ error: { code: string } }>('GET', '/v2/geo/81.2.69.142', { key });
    expect(quota.status).toBe(402);
    expect(quota.body.error.code).toBe('quota_exceeded');
    expect(quota.headers.get('x-quota-limit')).toBe('2');
    expect(quota.headers.get('x-quota-remaining')).toBe('0');
    // Every call so far took a token (refused ones too): the bucket (burst 4) is spent, and
    // refills at 0.2/s.
    const limited = await smallApi.request<{ error: { code: string } }>('GET', '/v2/account', { key });
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get('x-ratelimit-limit')).toBe('4');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    // A second key of the account shares the bucket: making keys does not raise the limit.
    const testKeyCall = await smallApi.request<{ error: { code: string } }>('GET', '/v2/account', {
      key: small.testKey,
    });
    expect(testKeyCall.status).toBe(429);
  });

  it('failed authentications from one address are limited (SVC_LIMITS_AUTH_FAILURES_PER_MINUTE)', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await smallApi.request<{ error: { code: string } }>('GET', '/v2/geo/81.2.69.142', {
        key: `sk_live_${String(i).repeat(40)}`,
      });
      statuses.push(response.status);
    }
    expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
    expect(statuses.slice(3)).toEqual([429, 429]);
  });
});

describe('geo data replaced while serving', () => {
  it('a new file over a configured database is picked up without a restart (health and lookups)', async () => {
    const { copyFile, mkdtemp, rename, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = await mkdtemp(join(tmpdir(), 'svc-e2e-geo-'));
    const city = join(dir, 'city.mmdb');
    await copyFile(GEO_CITY_FIXTURE, city);
    const child = await startServe({ env: { SVC_GEO_DATABASES: city } });
    try {
      const childApi = await ApiClient.connect(child.url);
      const type = async () =>
        (
          await childApi.request<{ geo: { databases: { type: string }[] } }>('GET', '/v2/health')
        ).body.geo.databases.map((db) => db.type);
      expect(await type()).toEqual(['GeoIP2-City']);
      // As svc geo update installs: a complete file renamed over the old one.
      await copyFile(GEO_CITY_FIXTURE.replace('GeoIP2-City-Test', 'GeoLite2-City-Test'), `${city}.tmp`);
      await rename(`${city}.tmp`, city);
      const deadline = Date.now() + 15_000;
      let seen = await type();
      while (seen[0] !== 'GeoLite2-City' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        seen = await type();
      }
      expect(seen).toEqual(['GeoLite2-City']);
      const geo = await childApi.request<{ country: string }>('GET', '/v2/geo/81.2.69.142', {
        key: child.liveKey,
      });
      expect(geo.status).toBe(200);
      expect(geo.body.country).toBe('GB');
    } finally {
      await child.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('graceful stop', () => {
  it('SIGTERM finishes the request in flight, then exits 0', async () => {
    const slowFleet = await startSmtpFleet({
      hosts: ['127.0.0.3'],
      script: { mailboxes: { 'someone@slow.test': 'accept' }, replyDelayMs: { rcpt: 1_500 } },
    });
    const slowDns = await startDnsServer({
      zones: {
        'canary.test': { A: ['192.0.2.1'] },
        'slow.test': { MX: [{ priority: 10, exchange: 'mx.slow.test' }] },
        'mx.slow.test': { A: ['127.0.0.3'] },
      },
    });
    const child = await startServe({
      env: {
        SVC_DNS: slowDns.address,
        SVC_DNS_CANARIES: 'canary.test',
        SVC_SMTP_PORT: String(slowFleet.port),
        SVC_SMTP_ALLOW_PRIVATE_MX: 'true',
        SVC_GEO_DATABASES: GEO_CITY_FIXTURE,
      },
    });
    try {
      const childApi = await ApiClient.connect(child.url);
      const inFlight = childApi.request<{ state: string }>('POST', '/v2/verify/email', {
        key: child.liveKey,
        json: { email: 'someone@slow.test', options: { probe_mailbox: true } },
      });
      // Wait until the probe is talking to the MX, then ask the server to stop.
      const deadline = Date.now() + 10_000;
      while (slowFleet.sessions.length === 0 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      expect(slowFleet.sessions.length).toBeGreaterThan(0);
      const exit = child.stop('SIGTERM');
      const answer = await inFlight;
      expect(answer.status).toBe(200);
      expect(answer.body.state).toBe('deliverable');
      expect(await exit).toEqual({ code: 0, signal: null });
      // No longer listening.
      await expect(fetch(`${child.url}/v2/health`)).rejects.toThrow();
    } finally {
      await child.stop();
      await slowFleet.close();
      await slowDns.close();
    }
  });
});

describe('the log', () => {
  it('has one line per request with its request id, and no key, token or secret (runs after the others)', async () => {
    const minted = await api.request<{ token: string }>('POST', '/v2/tokens', {
      key: server.liveKey,
      json: {},
    });
    const response = await api.request('GET', '/v2/geo/81.2.69.142', { key: minted.body.token });
    const requestId = response.headers.get('x-request-id') as string;
    // The log reaches stdout through a buffer flushed at least every 250 ms (LOG_FLUSH_MS).
    const deadline = Date.now() + 3_000;
    while (!server.stdout().includes(requestId) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const log = server.stdout();
    const line = log.split('\n').find((entry) => entry.includes(requestId));
    expect(line && JSON.parse(line)).toMatchObject({
      request_id: requestId,
      path: '/v2/geo/81.2.69.142',
      status: 200,
    });
    // The first start prints each secret once, on stderr; stdout (the request log's stream) never has one.
    for (const secret of [server.liveKey, server.testKey, server.webhookSecret]) {
      expect(log).not.toContain(secret);
      expect(server.stderr().split(secret).length - 1).toBe(1);
    }
    expect(log).not.toContain(minted.body.token);
    expect(server.stderr()).not.toContain(minted.body.token);
  });
});
