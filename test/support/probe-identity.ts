import type { DnsZones } from '@svc/testkit';

/** The public address of the probe whose identity `probeIdentityZones` serves. */
const PROBE_ADDRESS = '203.0.113.5';

/**
 * The DNS of a probe whose identity checks pass, for `svc serve`'s probing self-check: the
 * address's reverse name `probe.<domain>` resolves back to it and publishes SPF for it, as does
 * the mail domain `<domain>` (its MX is the probe); `ietf.org` answers signed (DNSSEC).
 */
export function probeIdentityZones(domain: string): DnsZones {
  const spf = `v=spf1 ip4:${PROBE_ADDRESS} -all`;
  return {
    'ietf.org': { A: ['127.0.0.2'], authenticated: true },
    [`${PROBE_ADDRESS.split('.').reverse().join('.')}.in-addr.arpa`]: { PTR: [`probe.${domain}`] },
    [`probe.${domain}`]: { A: [PROBE_ADDRESS], TXT: [spf] },
    [domain]: { MX: [{ priority: 10, exchange: `probe.${domain}` }], TXT: [spf] },
  };
}
