import { checkBlocklist } from './check-blocklist.js';
import { checkDnsResolver } from './check-dns-resolver.js';
import { checkOutboundSmtp } from './check-outbound-smtp.js';
import { checkPublicAddress } from './check-public-address.js';
import { checkReverseDns } from './check-reverse-dns.js';
import { checkSenderDomain } from './check-sender-domain.js';
import { createDoctorDns, type DoctorDnsAsk } from './dns-query.js';
import { type DoctorOptions, resolveDoctorOptions } from './options.js';
import type { DoctorCheck, DoctorReport } from './report.js';
import { worstStatus } from './report.js';

/**
 * The field checks for email probing (`svc doctor`): DNS resolver, outbound SMTP to a test host
 * (directly or through the SOCKS5 proxy), the public address receivers see, its reverse DNS, the
 * sender domain's SPF and MX, and the public address on each DNS blocklist. Never throws for what
 * it finds (a finding is a failed check); throws TypeError for bad options.
 */
export async function runDoctor(options: DoctorOptions = {}): Promise<DoctorReport> {
  const o = resolveDoctorOptions(options);
  const started = o.now();
  const startedAt = performance.now();
  let dns: { server: string; ask: DoctorDnsAsk };
  try {
    dns = createDoctorDns(o.dnsServer, o.dnsTimeoutMs);
  } catch (error) {
    if (o.dnsServer !== undefined) throw error;
    // No system resolver at all: every DNS question fails, and the DNS check says why.
    dns = {
      server: 'none',
      ask: () => Promise.reject(new Error('no DNS server configured on this system')),
    };
  }

  const [resolver, outbound] = await Promise.all([
    checkDnsResolver(o, dns.server, dns.ask),
    checkOutboundSmtp(o),
  ]);
  const { check: publicAddress, identity } = checkPublicAddress(o, outbound.echoedAddress);
  const address = identity.public_address;
  // With a resolver that does not work, "no PTR", "no SPF" and "not listed" would be guesses.
  const dnsWorks = resolver.status !== 'failed';
  const [reverseDns, sender, ...blocklists] = dnsWorks
    ? await Promise.all([
        checkReverseDns(o, address, dns.ask),
        checkSenderDomain(o, dns.ask),
        ...o.blocklists.map((list) => checkBlocklist(list, address, dns.ask)),
      ])
    : [
        notChecked('reverse_dns', 'identity', 'Reverse DNS (PTR)'),
        notChecked('sender_domain', 'identity', 'Sender domain'),
        ...o.blocklists.map((list) => notChecked(`blocklist:${list.zone}`, 'blocklists', list.name)),
      ];
  const checks: DoctorCheck[] = [resolver, outbound.check, publicAddress, reverseDns, sender, ...blocklists];
  return {
    status: worstStatus(checks.map((check) => check.status)),
    checked_at: new Date(started).toISOString(),
    duration_ms: Math.round(performance.now() - startedAt),
    identity,
    checks,
  };
}

function notChecked(id: string, group: DoctorCheck['group'], title: string): DoctorCheck {
  return {
    id,
    group,
    title,
    status: 'warning',
    message:
      'Not checked: the DNS resolver does not work (see the DNS resolver check), so any answer would be a guess.',
    details: { skipped: true },
  };
}
