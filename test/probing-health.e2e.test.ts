import { type FakeDnsServer, type SmtpFleet, startDnsServer, startSmtpServer } from '@svc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeIdentityZones } from './support/probe-identity.js';
import { ApiClient, GEO_CITY_FIXTURE, type ServeChild, startServe } from './support/serve-child.js';

// `svc serve` shows its owner the probing self-check in GET /v2/health, configured by SVC_SMTP_*,
// SVC_DNS and SVC_PROBING_*, against the testkit: a resolver serving reverse DNS and a blocklist,
// and an MTA that echoes the client address. Responses are checked against the OpenAPI document.

let dns: FakeDnsServer;
let mta: SmtpFleet;
let server: ServeChild;
let api: ApiClient;

interface Health {
  status: string;
  probing?: {
    state: string;
    finished_at: string | null;
    report: {
      status: string;
      identity: Record<string, unknown>;
      checks: { id: string; status: string; message: string; details: Record<string, unknown> }[];
    } | null;
  };
}

beforeAll(async () => {
  dns = await startDnsServer({
    zones: {
      ...probeIdentityZones('e2e.test'),
      '5.113.0.203.zen.spamhaus.org': {
        A: ['127.0.0.10'],
        TXT: ['https://check.spamhaus.org/query/ip/203.0.113.5'],
      },
    },
  });
  mta = await startSmtpServer({ script: { ehloGreeting: 'mx.test Hello {helo} [{client}]' } });
  server = await startServe({
    env: {
      SVC_DNS: dns.address,
      SVC_SMTP_PORT: String(mta.port),
      SVC_SMTP_HELO_NAME: 'probe.e2e.test',
      SVC_SMTP_MAIL_FROM: 'bounce@e2e.test',
      SVC_PROBING_INTERVAL_SECONDS: '21600',
      SVC_PROBING_TEST_HOST: '127.0.0.1',
      SVC_PROBING_PUBLIC_ADDRESS: '203.0.113.5',
      SVC_PROBING_BLOCKLISTS: 'zen.spamhaus.org',
      SVC_GEO_DATABASES: GEO_CITY_FIXTURE,
    },
  });
  api = await ApiClient.connect(server.url);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await Promise.all([mta?.close(), dns?.close()]);
});

describe('GET /v2/health: the probing self-check', () => {
  it('is absent without a key, and runs nothing', async () => {
    const health = await api.request<Health>('GET', '/v2/health');
    expect(health.status).toBe(200);
    expect(health.body).not.toHaveProperty('probing');
    expect(mta.sessions).toHaveLength(0);
  });

  it("the owner's key starts one run in the background and then sees its findings", async () => {
    const first = await api.request<Health>('GET', '/v2/health', { key: server.liveKey });
    expect(first.body.probing).toMatchObject({ state: 'running', report: null });
    let probing: Health['probing'];
    for (let i = 0; i < 100; i++) {
      probing = (await api.request<Health>('GET', '/v2/health', { key: server.testKey })).body.probing;
      if (probing?.state === 'ready') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(probing?.state).toBe('ready');
    const report = probing?.report;
    expect(report?.identity).toEqual({
      public_address: '203.0.113.5',
      public_address_source: 'configured',
      helo_name: 'probe.e2e.test',
      mail_from: 'bounce@e2e.test',
      proxy: null,
    });
    const statuses = Object.fromEntries(report?.checks.map((check) => [check.id, check.status]) ?? []);
    expect(statuses).toEqual({
      dns_resolver: 'ok',
      outbound_smtp: 'ok',
      // The MTA saw 127.0.0.1, not the configured address: said so.
      public_address: 'warning',
      reverse_dns: 'ok',
      sender_domain: 'ok',
      'blocklist:zen.spamhaus.org': 'failed',
    });
    const zen = report?.checks.find((check) => check.id === 'blocklist:zen.spamhaus.org');
    expect(zen?.details).toMatchObject({
      listed: true,
      answers: [{ code: '127.0.0.10', kind: 'listed' }],
      delisting: 'https://check.spamhaus.org/',
    });
    expect(report?.status).toBe('failed');
    // One run, whatever the number of requests: one SMTP session at the test host.
    expect(mta.sessions).toHaveLength(1);
    expect(mta.sessions[0]?.commands[0]).toBe('EHLO probe.e2e.test');
  });
});
