import type { FakeDnsServer, SmtpFleet } from '@svc/testkit';

/**
 * The flags that point a probing command (`svc verify`, `svc batch run --probe`) at the testkit's
 * fake DNS server (with `canary.test` as the health canary) and SMTP fleet, loopback allowed.
 */
export const fleetFlags = (dns: FakeDnsServer, fleet: SmtpFleet): string[] => [
  '--dns',
  dns.address,
  '--dns-canary',
  'canary.test',
  '--smtp-port',
  String(fleet.port),
  '--helo',
  'cli.test',
  '--allow-private-mx',
];
