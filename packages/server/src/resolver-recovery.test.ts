import { createNodeDnsResolver, createVerifier } from '@svc/email-verifier';
import { type FakeDnsServer, startDnsServer } from '@svc/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchJson } from './testing/fetch-json.js';
import { createTestServer, type TestServer } from './testing/test-server.js';

// A resolver that lies and then recovers, seen through real HTTP on 127.0.0.1: the server
// listens, the verifier asks the testkit's DNS server, and the verifier's clock is moved past the
// re-check interval (2 min) instead of waiting for it.

const MAIL = { MX: [{ priority: 10, exchange: 'mx.good.test' }] };
const MONTH = '2026-11';

let dns: FakeDnsServer | undefined;
let server: TestServer | undefined;
afterEach(async () => {
  await server?.app.close();
  await dns?.close();
  server = undefined;
  dns = undefined;
});

describe('a resolver that fails its canaries, then recovers (svc serve over HTTP)', () => {
  it('503 dns_unavailable answers, unbilled, a degraded health; then normal answers, billed, health ok', async () => {
    // The resolver cannot see the internet: the canary and the domain are NXDOMAIN.
    dns = await startDnsServer({ zones: { 'canary.test': 'NXDOMAIN', 'good.test': 'NXDOMAIN' } });
    let verifierNow = Date.parse('2026-11-23T12:00:00Z');
    const verifier = createVerifier({
      dns: createNodeDnsResolver({ servers: [dns.address], timeoutMs: 300, tries: 1 }),
      clock: () => new Date(verifierNow),
      resolverHealth: { canaries: ['canary.test'] },
      resultCache: false,
    });
    server = await createTestServer({ verifier });
    const { account, liveKey } = await server.account('free');
    await server.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = server.app.server.address() as { port: number };
    const base = `http://127.0.0.1:${port}`;
    const key = liveKey.secret;

    // Lying: no verdict, no bill.
    const single = await fetchJson(base, 'POST', '/v2/verify/email', key, { email: 'a@good.test' });
    expect(single.status).toBe(503);
    expect(single.body.error.code).toBe('upstream_timeout');
    expect(single.body.error.message).toContain(
      `No verdict on good.test: the DNS resolver ${dns.address} denies names that exist (NXDOMAIN for canary.test)`,
    );
    const bulk = await fetchJson(base, 'POST', '/v2/verify/email/bulk', key, {
      emails: ['a@good.test', 'b@good.test'],
    });
    expect(bulk.status).toBe(200);
    expect(
      bulk.body.results.map((result: { state: string; reasons: string[] }) => [result.state, result.reasons]),
    ).toEqual([
      ['unknown', ['dns_unavailable']],
      ['unknown', ['dns_unavailable']],
    ]);
    expect(await server.store.usedUnits(account.id, MONTH)).toBe(0);
    const degraded = await fetchJson(base, 'GET', '/v2/health', null);
    expect(degraded).toMatchObject({ status: 200, body: { status: 'degraded', failing: ['dns_resolver'] } });

    // The resolver sees the internet again; the next check is due after the 2 min interval.
    dns.setZone('canary.test', { A: ['192.0.2.1'] });
    dns.setZone('good.test', MAIL);
    verifierNow += 120_000;
    const recovered = await fetchJson(base, 'POST', '/v2/verify/email', key, { email: 'a@good.test' });
    expect(recovered.status).toBe(200);
    expect(recovered.body).toMatchObject({ state: 'deliverable', reasons: ['mailbox_not_probed'] });
    const bulkAgain = await fetchJson(base, 'POST', '/v2/verify/email/bulk', key, {
      emails: ['a@good.test', 'b@good.test'],
    });
    expect(bulkAgain.body.results.map((result: { state: string }) => result.state)).toEqual([
      'deliverable',
      'deliverable',
    ]);
    // Billed now: one unit for the single verify, one per bulk address.
    expect(await server.store.usedUnits(account.id, MONTH)).toBe(3);
    const healthy = await fetchJson(base, 'GET', '/v2/health', null);
    expect(healthy).toMatchObject({ status: 200, body: { status: 'ok', failing: [] } });
    expect(healthy.body.checks).toContainEqual(expect.objectContaining({ id: 'dns_resolver', status: 'ok' }));
  });
});
