import { createNodeDnsResolver, type VerifierOptions } from '@svc/email-verifier';
import { type FakeDnsServer, fleetProbeOptions, type SmtpFleet } from '@svc/testkit';

/**
 * Options of a verifier that really probes: DNS from the testkit's fake server, SMTP to its fleet
 * (private addresses allowed), short timeouts, no catch-all cache, and `canary.test` as the
 * resolver health canary. `overrides` replace any of these; its `smtp` is merged into the defaults.
 */
export function fleetVerifierOptions(
  dns: FakeDnsServer,
  fleet: SmtpFleet,
  overrides: VerifierOptions = {},
): VerifierOptions {
  return {
    dns: createNodeDnsResolver({ servers: [dns.address], timeoutMs: 300, tries: 1 }),
    resolverHealth: { canaries: ['canary.test'] },
    ...overrides,
    smtp: { ...fleetProbeOptions(fleet), ...overrides.smtp },
  };
}
