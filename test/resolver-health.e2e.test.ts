import { type DnsZones, type FakeDnsServer, startDnsServer } from '@svc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, GEO_CITY_FIXTURE, type ServeChild, startServe } from './support/serve-child.js';

// `svc serve` on a machine whose resolver cannot see the internet, played by the testkit's DNS
// server answering NXDOMAIN (then SERVFAIL, then nothing) for every name, the default canaries
// (iana.org, ietf.org, icann.org) included: no verdict, no bill, a degraded health.

const month = () => new Date().toISOString().slice(0, 7);

describe.each([
  ['NXDOMAIN', { '*': 'NXDOMAIN' } as DnsZones],
  ['SERVFAIL', { '*': 'SERVFAIL' } as DnsZones],
  ['no answer', { '*': 'NO_ANSWER' } as DnsZones],
])('svc serve through a resolver answering %s for every name', (denial, zones) => {
  let dns: FakeDnsServer;
  let server: ServeChild;
  let api: ApiClient;

  beforeAll(async () => {
    dns = await startDnsServer({ zones });
    server = await startServe({
      env: { SVC_DNS: dns.address, SVC_DNS_TIMEOUT_MS: '300', SVC_GEO_DATABASES: GEO_CITY_FIXTURE },
    });
    api = await ApiClient.connect(server.url);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await dns?.close();
  });

  it('health is 200 degraded naming dns_resolver and what it denied', async () => {
    // Checked at start: wait for the check to end (no answer takes two tries of 300 ms).
    let body: {
      status: string;
      failing: string[];
      checks: { id: string; status: string; message: string }[];
    } = { status: '', failing: [], checks: [] };
    await expect
      .poll(
        async () => {
          const health = await api.request<typeof body>('GET', '/v2/health');
          expect(health.status).toBe(200);
          body = health.body;
          return body.status;
        },
        { timeout: 10_000, interval: 100 },
      )
      .toBe('degraded');
    expect(body.failing).toEqual(['dns_resolver']);
    expect(body.checks.find((check) => check.id === 'dns_resolver')?.message).toContain(
      `denies names that exist (${denial} for iana.org, ${denial} for ietf.org, ${denial} for icann.org)`,
    );
  });

  it('a single verify is 503 upstream_timeout naming the resolver, never 422', async () => {
    const single = await api.request<{ error: { code: string; message: string } }>(
      'POST',
      '/v2/verify/email',
      {
        key: server.liveKey,
        json: { email: 'alice@gmail.com' },
      },
    );
    expect(single.status).toBe(503);
    expect(single.body.error.code).toBe('upstream_timeout');
    expect(single.body.error.message).toContain(
      `No verdict on gmail.com: the DNS resolver ${dns.address} denies`,
    );
  });

  it('bulk and batch records are unknown / dns_unavailable and not billed', async () => {
    const before = await usageUnits(api, server.liveKey);
    const bulk = await api.request<{
      results: { state: string; reasons: string[] }[];
      summary: Record<string, number>;
    }>('POST', '/v2/verify/email/bulk', {
      key: server.liveKey,
      json: { emails: ['a@gmail.com', 'b@yahoo.com', 'not an address'] },
    });
    expect(bulk.status).toBe(200);
    expect(bulk.body.results.map((result) => [result.state, result.reasons[0]])).toEqual([
      ['unknown', 'dns_unavailable'],
      ['unknown', 'dns_unavailable'],
      ['undeliverable', 'invalid_syntax'],
    ]);

    const job = await api.request<{ id: string }>('POST', '/v2/batch', {
      key: server.liveKey,
      json: { type: 'verify_email', records: ['c@gmail.com', 'd@outlook.com'] },
    });
    expect(job.status).toBe(202);
    let counts: Record<string, number> = {};
    await expect
      .poll(
        async () => {
          const read = await api.request<{ status: string; counts: Record<string, number> }>(
            'GET',
            `/v2/batch/${job.body.id}`,
            { key: server.liveKey },
          );
          counts = read.body.counts;
          return read.body.status;
        },
        { timeout: 20_000, interval: 100 },
      )
      .toBe('completed');
    expect(counts).toEqual({ unknown: 2, dns_unavailable: 2 });
    // The bulk call bills its one verdict; the job's 2 records are credited back when it ends.
    await expect
      .poll(async () => (await usageUnits(api, server.liveKey)) - before, { timeout: 10_000 })
      .toBe(1);
  });
});

async function usageUnits(api: ApiClient, key: string): Promise<number> {
  const usage = await api.request<{ lines: { units: number }[] }>('GET', `/v2/usage?month=${month()}`, {
    key,
  });
  return usage.body.lines.reduce((sum, line) => sum + line.units, 0);
}
