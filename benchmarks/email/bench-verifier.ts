import {
  createNodeDnsResolver,
  createVerifier,
  type SmtpProbeOptions,
  type Verifier,
} from '@svc/email-verifier';
import type { FakeInternet } from './fake-internet.js';

/**
 * A fresh verifier (cold DNS cache) against the fake internet: its DNS server, its MTAs on port
 * 25 (loopback allowed), HELO `bench.example.com`; `smtp` sets the rest (concurrency, RCPTs).
 */
export function benchVerifier(fakes: FakeInternet, smtp: SmtpProbeOptions): Verifier {
  return createVerifier({
    dns: createNodeDnsResolver({ servers: [fakes.dnsAddress] }),
    smtp: { port: 25, heloName: 'bench.example.com', allowPrivateAddresses: true, ...smtp },
  });
}
