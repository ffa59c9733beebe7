import { createNodeDnsResolver, type VerifierOptions } from '@svc/email-verifier';
import {
  type DnsServerOptions,
  type FakeDnsServer,
  fleetProbeOptions,
  type SmtpFleet,
  type SmtpFleetOptions,
  startDnsServer,
  startSmtpFleet,
} from '@svc/testkit';
import { afterAll, beforeAll, beforeEach } from 'vitest';

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

/** The fake DNS server and SMTP fleet of {@link mailLabPerFile}, readable while its tests run. */
export interface MailLab {
  readonly dns: FakeDnsServer;
  readonly fleet: SmtpFleet;
}

/**
 * A fake DNS server serving `zones` and an SMTP fleet for the tests of one file (or `describe`):
 * started before them, closed after them. Before each test the fleet is idle and neither keeps
 * records (queries, sessions) of the tests before.
 */
export function mailLabPerFile(options: {
  zones: DnsServerOptions['zones'];
  fleet: SmtpFleetOptions;
}): MailLab {
  let dns: FakeDnsServer | undefined;
  let fleet: SmtpFleet | undefined;
  beforeAll(async () => {
    dns = await startDnsServer({ zones: options.zones });
    fleet = await startSmtpFleet(options.fleet);
  });
  afterAll(async () => {
    await fleet?.close();
    await dns?.close();
  });
  beforeEach(async () => {
    await fleet?.waitForIdle();
    fleet?.resetRecords();
    dns?.resetRecords();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('mailLabPerFile: the lab runs only while the tests run');
    return value;
  };
  return {
    get dns() {
      return started(dns);
    },
    get fleet() {
      return started(fleet);
    },
  };
}
