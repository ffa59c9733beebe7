import { type DoctorDnsAsk, describeDnsFailure, rcodeName } from './dns-query.js';
import type { ResolvedDoctorOptions } from './options.js';
import type { DoctorCheck } from './report.js';

/** Does the resolver answer, how fast, and does it validate DNSSEC (the AD bit on a signed name)? */
export async function checkDnsResolver(
  o: ResolvedDoctorOptions,
  server: string,
  ask: DoctorDnsAsk,
): Promise<DoctorCheck> {
  const check = (status: DoctorCheck['status'], message: string, details: Record<string, unknown>) => ({
    id: 'dns_resolver',
    group: 'dns' as const,
    title: 'DNS resolver',
    status,
    message,
    details: { server, test_name: o.dnssecTestName, ...details },
  });
  let reply: Awaited<ReturnType<DoctorDnsAsk>>;
  try {
    reply = await ask(o.dnssecTestName, 'A');
  } catch (error) {
    return check(
      'failed',
      `The resolver ${server} did not answer (${describeDnsFailure(error)}): every verification will end dns_error (503 upstream_timeout on the server). Check /etc/resolv.conf or pass another resolver (--dns host:port).`,
      { answered: false, dnssec_validating: null, latency_ms: null },
    );
  }
  const details = {
    answered: true,
    rcode: rcodeName(reply.rcode),
    dnssec_validating: reply.authenticated,
    latency_ms: reply.elapsedMs,
  };
  if (reply.rcode !== 0) {
    return check(
      'failed',
      `The resolver ${server} answered ${rcodeName(reply.rcode)} for ${o.dnssecTestName}, a name that exists: it cannot resolve names on the internet (or its DNSSEC validation fails). Use another resolver (--dns host:port).`,
      details,
    );
  }
  const dnssec = reply.authenticated
    ? 'validates DNSSEC'
    : 'does not validate DNSSEC (fine for verification; a validating resolver such as unbound would reject forged MX answers)';
  if (reply.elapsedMs > o.slowDnsMs) {
    return check(
      'warning',
      `The resolver ${server} answered in ${reply.elapsedMs} ms, slower than ${o.slowDnsMs} ms: large lists will wait on DNS. Use a closer or caching resolver. It ${dnssec}.`,
      details,
    );
  }
  return check('ok', `The resolver ${server} answers in ${reply.elapsedMs} ms and ${dnssec}.`, details);
}
