import { startDnsServer, startSmtpFleet } from '@svc/testkit';
import { expect, it } from 'vitest';
import { createNodeDnsResolver } from './dns/backends/node-dns.js';
import { createVerifier } from './verifier.js';

it('verifyMany probes a domain as soon as its DNS answers, not once the slowest domain has', async () => {
  const dns = await startDnsServer({
    zones: {
      'canary.test': { A: ['192.0.2.1'] },
      'fast.test': { MX: [{ priority: 10, exchange: 'mx.fast.test' }] },
      'mx.fast.test': { A: ['127.0.0.2'] },
      // A slow authoritative server: its answer comes 1.5 s late.
      'slow.test': { MX: [{ priority: 10, exchange: 'mx.slow.test' }], delayMs: 1500 },
      'mx.slow.test': { A: ['127.0.0.3'] },
    },
  });
  const fleet = await startSmtpFleet({
    hosts: ['127.0.0.2', '127.0.0.3'],
    script: { domains: { 'fast.test': 'accept', 'slow.test': 'accept' } },
  });
  try {
    const verifier = createVerifier({
      dns: createNodeDnsResolver({ servers: [dns.address], timeoutMs: 3000, tries: 1 }),
      resolverHealth: { canaries: ['canary.test'] },
      smtp: { port: fleet.port, allowPrivateAddresses: true, heloName: 'verifier.test' },
    });
    const started = Date.now();
    const results = await verifier.verifyMany(['a@fast.test', 'b@slow.test'], { probe_mailbox: true });
    expect(results.map((result) => result.smtp?.code)).toEqual([250, 250]);
    const fast = fleet.sessions.find((session) => session.host === '127.0.0.2');
    const slow = fleet.sessions.find((session) => session.host === '127.0.0.3');
    // The fast domain's session started long before the slow domain's MX was known.
    expect((fast?.startedAt ?? Number.POSITIVE_INFINITY) - started).toBeLessThan(1000);
    expect((slow?.startedAt ?? 0) - started).toBeGreaterThanOrEqual(1500);
  } finally {
    await fleet.close();
    await dns.close();
  }
});
