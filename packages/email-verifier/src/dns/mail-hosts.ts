import { DnsQueryError, type DnsResolver } from './resolver.js';

/** What DNS says about a domain's mail service. */
export type MailDomainStatus = 'accepts_mail' | 'null_mx' | 'no_mx_records' | 'not_found';

/** One host to try, in order. */
export interface MailHost {
  /** Lowercase host name without a trailing dot. */
  host: string;
  priority: number;
  /** True for the implicit MX of RFC 5321 §5.1 (the domain itself, no MX published). */
  implicit: boolean;
}

export interface MailHosts {
  status: MailDomainStatus;
  /** Hosts in the order they are to be tried; empty unless status is accepts_mail. */
  hosts: MailHost[];
}

/** Options of resolveMailHosts. */
export interface ResolveMailHostsOptions {
  resolver: DnsResolver;
  /** Decides whether an A/AAAA address may serve as an implicit MX (public unicast only). */
  isPublicAddress: (ip: string) => boolean;
  /**
   * Lets a private, loopback or other non-public A/AAAA address serve as an implicit MX, as
   * `smtp.allowPrivateAddresses` lets such MX hosts be probed (tests, intranets).
   * @default false
   */
  allowPrivateAddresses?: boolean;
  /** Random source in [0, 1) used to order equal-preference MX hosts. @default Math.random */
  random?: () => number;
}

/**
 * The mail hosts of a domain: MX sorted by preference (random within equal preference, RFC 5321
 * §5.1); a null MX (RFC 7505) means the domain accepts no mail; no MX falls back to the domain's
 * own public A/AAAA addresses (any address with `allowPrivateAddresses`). NXDOMAIN is an answer (not_found); SERVFAIL and timeouts throw
 * DnsQueryError, since they say nothing about the domain.
 */
export async function resolveMailHosts(domain: string, options: ResolveMailHostsOptions): Promise<MailHosts> {
  const { resolver, isPublicAddress } = options;
  const random = options.random ?? Math.random;
  let records: Awaited<ReturnType<DnsResolver['mx']>>['records'];
  try {
    records = (await resolver.mx(domain)).records;
  } catch (error) {
    if (error instanceof DnsQueryError && error.kind === 'not_found')
      return { status: 'not_found', hosts: [] };
    throw error;
  }

  const named = records.map((record) => ({ ...record, exchange: normaliseHost(record.exchange) }));
  const real = named.filter((record) => record.exchange !== '');
  if (real.length === 0 && named.length > 0) return { status: 'null_mx', hosts: [] };
  if (real.length > 0) {
    // A null MX next to real ones is a misconfiguration (RFC 7505 §3); the real ones are used.
    const seen = new Set<string>();
    const ordered = real
      .map((record) => ({ record, tiebreak: random() }))
      .sort((a, b) => a.record.priority - b.record.priority || a.tiebreak - b.tiebreak)
      .map(({ record }) => record)
      .filter((record) => !seen.has(record.exchange) && seen.add(record.exchange));
    return {
      status: 'accepts_mail',
      hosts: ordered.map((record) => ({ host: record.exchange, priority: record.priority, implicit: false })),
    };
  }

  const addresses = await addressesOf(domain, resolver);
  if (options.allowPrivateAddresses === true ? addresses.length > 0 : addresses.some(isPublicAddress)) {
    return { status: 'accepts_mail', hosts: [{ host: normaliseHost(domain), priority: 0, implicit: true }] };
  }
  return { status: 'no_mx_records', hosts: [] };
}

/** IPv4 then IPv6 addresses of a host; an absent name or empty answers give []. */
export async function addressesOf(host: string, resolver: DnsResolver): Promise<string[]> {
  const settle = async (ask: Promise<{ records: string[] }>) => {
    try {
      return (await ask).records;
    } catch (error) {
      if (error instanceof DnsQueryError && error.kind === 'not_found') return [];
      throw error;
    }
  };
  const [v4, v6] = await Promise.all([settle(resolver.a(host)), settle(resolver.aaaa(host))]);
  return [...v4, ...v6];
}

function normaliseHost(name: string): string {
  const host = name.trim().toLowerCase();
  return host === '.' ? '' : host.replace(/\.$/, '');
}
