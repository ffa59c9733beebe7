import { tmpdir } from 'node:os';
import { runDoctor } from '@svc/email-verifier';
import { startDnsServer, startSmtpServer } from '@svc/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadServerConfig } from '../config.js';
import { resolveServerOptions } from '../options.js';
import { createProbingHealth, type ProbingHealth, serverDoctorOptions } from '../probing-health.js';
import { doctorReport } from '../testing/doctor-report.js';
import { createTestServer, type TestServer } from '../testing/test-server.js';

describe('GET /v2/health: the probing self-check for the owner', () => {
  let server: TestServer;
  afterEach(async () => {
    await server?.app.close();
  });
  const health = (key?: string, query = '') =>
    server.app.inject({ method: 'GET', url: `/v2/health${query}`, headers: key ? { 'x-api-key': key } : {} });

  /** A self-check that counts its runs and reports the run number as its duration. */
  function countingHealth(clock: { now: number }): { health: ProbingHealth; runs: () => number } {
    let runs = 0;
    const health = createProbingHealth({
      now: () => clock.now,
      run: async () => {
        runs += 1;
        return doctorReport(
          { status: 'warning', checked_at: new Date(clock.now).toISOString(), duration_ms: runs },
          {
            id: 'public_address',
            group: 'identity',
            title: 'Public address',
            status: 'warning',
            message: 'unknown',
            details: { address: null },
          },
        );
      },
    });
    return { health, runs: () => runs };
  }

  it("other clients' failed keys at the owner's address never hide the owner's findings (issue 24 item 3)", async () => {
    const clock = { now: 0 };
    const probe = countingHealth(clock);
    server = await createTestServer({
      probingHealth: probe.health,
      now: () => clock.now,
      options: { limits: { authFailuresPerMinute: 2 } },
    });
    clock.now = server.clock.now;
    const owner = await server.account('self_hosted', 'owner');
    for (let i = 0; i < 4; i++)
      expect((await health(`sk_live_${String(i).repeat(40)}`)).statusCode).toBe(200);
    // The address's failure bucket is empty (the API would answer its guesses 429)...
    const guess = await server.call('GET', '/v2/account', `sk_live_${'9'.repeat(40)}`);
    expect(guess.statusCode).toBe(429);
    // ...and the owner's key, never verified here, still gets the probing section.
    expect((await health(owner.liveKey.secret)).json()).toHaveProperty('probing');
  });

  it('shows nothing and runs nothing without the owner key; runs once and caches for the owner', async () => {
    const clock = { now: 0 };
    const probe = countingHealth(clock);
    server = await createTestServer({ probingHealth: probe.health, now: () => clock.now });
    clock.now = server.clock.now;
    const owner = await server.account('self_hosted', 'owner');
    server.clock.now += 1000;
    const customer = await server.account('pro', 'customer');

    expect((await health()).json()).not.toHaveProperty('probing');
    expect((await health(customer.liveKey.secret)).json()).not.toHaveProperty('probing');
    expect((await health('sk_live_not_a_real_key_0000000000000000')).statusCode).toBe(200);
    expect(probe.runs()).toBe(0);

    const first = await health(owner.liveKey.secret);
    expect(first.statusCode).toBe(200);
    expect(first.json().probing).toEqual({
      state: 'running',
      finished_at: null,
      next_run_at: null,
      report: null,
    });
    await probe.health.settled();
    // Any credential of the owner account sees it (the dashboard signs in with a token).
    const ready = (await health(owner.testKey.secret)).json().probing;
    expect(ready).toMatchObject({
      state: 'ready',
      finished_at: new Date(clock.now).toISOString(),
      next_run_at: new Date(clock.now + 6 * 3600_000).toISOString(),
      report: {
        status: 'warning',
        duration_ms: 1,
        checks: [{ id: 'public_address', details: { address: null } }],
      },
    });
    for (let i = 0; i < 5; i++) await health(owner.liveKey.secret);
    expect(probe.runs()).toBe(1);

    // A refresh is honoured at most once a minute.
    await health(owner.liveKey.secret, '?refresh_probing=true');
    expect(probe.runs()).toBe(1);
    clock.now += 61_000;
    expect((await health(owner.liveKey.secret, '?refresh_probing=true')).json().probing.state).toBe(
      'running',
    );
    await probe.health.settled();
    expect(probe.runs()).toBe(2);

    // Six hours later the next owner request starts a new run, serving the old report meanwhile.
    clock.now += 6 * 3600_000;
    const stale = (await health(owner.liveKey.secret)).json().probing;
    expect(stale).toMatchObject({ state: 'running', report: { duration_ms: 2 } });
    await probe.health.settled();
    expect(probe.runs()).toBe(3);
    expect((await health(customer.liveKey.secret)).json()).not.toHaveProperty('probing');
  });

  it('a real self-check against the testkit keeps every field through the response schema', async () => {
    const dns = await startDnsServer({
      zones: {
        'signed.test': { A: ['127.0.0.2'], authenticated: true },
        '5.113.0.203.in-addr.arpa': { PTR: ['probe.example.test'] },
        'probe.example.test': { A: ['203.0.113.5'], TXT: ['v=spf1 ip4:203.0.113.5 -all'] },
        '5.113.0.203.zen.bl.test': { A: ['127.0.0.4'], TXT: ['XBL listed'] },
      },
    });
    const mta = await startSmtpServer({});
    try {
      const probingHealth = createProbingHealth({
        run: () =>
          runDoctor({
            heloName: 'probe.example.test',
            publicAddress: '203.0.113.5',
            testHost: '127.0.0.1',
            port: mta.port,
            dnsServer: dns.address,
            dnssecTestName: 'signed.test',
            blocklists: [
              {
                zone: 'zen.bl.test',
                name: 'ZEN (test)',
                codes: { '127.0.0.4': 'XBL' },
                delisting: 'https://check.spamhaus.org/',
                ipv6: true,
              },
            ],
            connectTimeoutMs: 2000,
            commandTimeoutMs: 2000,
            dnsTimeoutMs: 1000,
            slowDnsMs: 3000,
          }),
      });
      server = await createTestServer({ probingHealth });
      const owner = await server.account('self_hosted', 'owner');
      await health(owner.liveKey.secret);
      await probingHealth.settled();
      const { report } = (await health(owner.liveKey.secret)).json().probing;
      expect(report.status).toBe('failed');
      expect(report.identity).toEqual({
        public_address: '203.0.113.5',
        public_address_source: 'configured',
        helo_name: 'probe.example.test',
        mail_from: '',
        proxy: null,
      });
      expect(report.checks.map((check: { id: string; status: string }) => [check.id, check.status])).toEqual([
        ['dns_resolver', 'ok'],
        ['outbound_smtp', 'ok'],
        ['public_address', 'ok'],
        ['reverse_dns', 'ok'],
        ['sender_domain', 'ok'],
        ['blocklist:zen.bl.test', 'failed'],
      ]);
      expect(report.checks[5].details).toMatchObject({
        listed: true,
        answers: [{ code: '127.0.0.4', kind: 'listed', meaning: 'XBL' }],
        reason: ['XBL listed'],
        delisting: 'https://check.spamhaus.org/',
      });
      expect(report.checks[1].details).toMatchObject({ outcome: 'reachable', port: mta.port });
    } finally {
      await Promise.all([dns.close(), mta.close()]);
    }
  });
});

describe('serverDoctorOptions', () => {
  it("checks the server's identity, through the first proxy of a pool pinned to no provider", () => {
    const options = resolveServerOptions({
      smtp: {
        heloName: 'verify.example.com',
        mailFrom: 'bounce@example.com',
        proxies: [
          { url: 'socks5://10.0.0.7:1080', providers: ['google'] },
          { url: 'socks5://probe:s3cret@10.0.0.5:1081' },
        ],
      },
      dns: '127.0.0.1:5353',
    });
    expect(serverDoctorOptions(options)).toEqual({
      port: 25,
      heloName: 'verify.example.com',
      mailFrom: 'bounce@example.com',
      dnsServer: '127.0.0.1:5353',
      proxy: { host: '10.0.0.5', port: 1081, username: 'probe', password: 's3cret' },
    });
    expect(serverDoctorOptions(resolveServerOptions({}))).toEqual({ port: 25 });
  });
});

describe('probing settings', () => {
  it('probing.testHost, publicAddress and blocklists reach the doctor (a known zone with its codes)', () => {
    const doctor = serverDoctorOptions(
      resolveServerOptions({
        probing: {
          testHost: 'mx.example.net',
          publicAddress: '198.51.100.23',
          blocklists: ['zen.spamhaus.org', 'bl.example.net'],
        },
      }),
    );
    expect(doctor).toMatchObject({ testHost: 'mx.example.net', publicAddress: '198.51.100.23' });
    expect(doctor.blocklists?.map((list) => [list.zone, list.name, list.delisting])).toEqual([
      ['zen.spamhaus.org', 'Spamhaus ZEN', 'https://check.spamhaus.org/'],
      ['bl.example.net', 'bl.example.net', null],
    ]);
  });

  it('probing.intervalSeconds 0 turns the self-check off: the owner sees no probing', async () => {
    const server = await createTestServer({ options: { probing: { intervalSeconds: 0 } } });
    try {
      const owner = await server.account('self_hosted', 'owner');
      const response = await server.call('GET', '/v2/health', owner.liveKey.secret);
      expect(response.statusCode).toBe(200);
      expect(response.json()).not.toHaveProperty('probing');
    } finally {
      await server.app.close();
    }
  });
});

describe('probing settings from the environment', () => {
  it('reads SVC_PROBING_* and refuses a public address that is not one, naming the variable', async () => {
    const loaded = await loadServerConfig({
      env: { SVC_PROBING_INTERVAL_SECONDS: '0', SVC_PROBING_BLOCKLISTS: 'zen.spamhaus.org,bl.example.net' },
      cwd: tmpdir(),
    });
    expect(loaded.options.probing).toEqual({
      intervalSeconds: 0,
      blocklists: ['zen.spamhaus.org', 'bl.example.net'],
    });
    const error = await loadServerConfig({
      env: { SVC_PROBING_PUBLIC_ADDRESS: 'nope' },
      cwd: tmpdir(),
    }).catch((caught: Error) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/SVC_PROBING_PUBLIC_ADDRESS.*must be an IPv4 or IPv6 address/);
  });
});
