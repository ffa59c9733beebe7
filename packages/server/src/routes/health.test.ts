import { createDns2Resolver, createVerifier } from '@svc/email-verifier';
import { type DnsZones, type FakeDnsServer, startDnsServer } from '@svc/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { createProbingHealth } from '../probing-health.js';
import { doctorReport } from '../testing/doctor-report.js';
import { createTestServer, type TestServer } from '../testing/test-server.js';

// GET /v2/health's top-level status: `degraded` (still 200) with the failing checks named, here
// with the testkit's DNS server playing a resolver that cannot see the internet.

let server: TestServer | undefined;
let dns: FakeDnsServer | undefined;
afterEach(async () => {
  await server?.app.close();
  await dns?.close();
  server = dns = undefined;
});

async function serverWithResolver(zones: DnsZones) {
  dns = await startDnsServer({ zones });
  const verifier = createVerifier({
    dns: createDns2Resolver({ server: dns.address, timeoutMs: 2000, tries: 1 }),
    resolverHealth: { canaries: ['canary.test', 'canary2.test'] },
  });
  server = await createTestServer({ verifier });
  // As svc serve does at start.
  verifier.resolverHealth();
  return { server, dns, verifier };
}

const health = (s: TestServer, key?: string) =>
  s.app.inject({ method: 'GET', url: '/v2/health', headers: key ? { 'x-api-key': key } : {} });

describe('GET /v2/health status', () => {
  it('is degraded (200) while the resolver denies its canaries, naming dns_resolver; key-less callers see no resolver address', async () => {
    const { server: s, dns: d } = await serverWithResolver({ '*': 'NXDOMAIN' });
    await expect.poll(async () => (await health(s)).json().status).toBe('degraded');
    const response = await health(s);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.failing).toEqual(['dns_resolver']);
    expect(body.checks).toContainEqual({
      id: 'dns_resolver',
      status: 'failed',
      message:
        'The DNS resolver denies names that exist (NXDOMAIN for canary.test, NXDOMAIN for canary2.test). Until it resolves them, no domain is called non-existent: verifications answer 503 upstream_timeout, bulk and batch records unknown / dns_unavailable (not billed).',
    });
    expect(JSON.stringify(body)).not.toContain(d.address);
    // The owner is told which resolver.
    const { liveKey } = await s.account('self_hosted', 'owner');
    const owner = (await health(s, liveKey.secret)).json();
    expect(owner.checks.find((check: { id: string }) => check.id === 'dns_resolver').message).toContain(
      `The DNS resolver (${d.address}) denies names that exist (NXDOMAIN for canary.test`,
    );
  });

  it('is ok once the canaries resolve, and pending (not failed) before the first check ends', async () => {
    const { server: s } = await serverWithResolver({
      'canary.test': { A: ['192.0.2.1'], delayMs: 200 },
      'canary2.test': { AAAA: ['2001:db8::1'], delayMs: 200 },
    });
    const first = (await health(s)).json();
    expect(first).toMatchObject({ status: 'ok', failing: [] });
    expect(first.checks).toContainEqual({
      id: 'dns_resolver',
      status: 'pending',
      message: 'The DNS resolver is being checked.',
    });
    await expect
      .poll(async () =>
        (await health(s)).json().checks.find((check: { id: string }) => check.id === 'dns_resolver'),
      )
      .toEqual({
        id: 'dns_resolver',
        status: 'ok',
        message: 'The DNS resolver resolves 2 of its 2 canary names (canary.test, canary2.test).',
      });
  });

  it('is degraded for the owner when a check of the probing self-check failed; others see ok', async () => {
    const probingHealth = createProbingHealth({
      run: async () =>
        doctorReport(
          { status: 'failed', checked_at: '2026-11-23T12:00:00.000Z', duration_ms: 1 },
          {
            id: 'outbound_smtp',
            group: 'smtp',
            title: 'Outbound SMTP (port 25)',
            status: 'failed',
            message: 'filtered',
            details: {},
          },
        ),
    });
    const s = await createTestServer({ probingHealth });
    server = s;
    const { liveKey } = await s.account('self_hosted', 'owner');
    await health(s, liveKey.secret);
    await probingHealth.settled();
    const owner = (await health(s, liveKey.secret)).json();
    expect(owner).toMatchObject({ status: 'degraded', failing: ['probing'] });
    expect(owner.checks).toContainEqual({
      id: 'probing',
      status: 'failed',
      message: 'The email probing self-check failed: Outbound SMTP (port 25) (see probing).',
    });
    expect((await health(s)).json()).toMatchObject({ status: 'ok', failing: [] });
  });
});
