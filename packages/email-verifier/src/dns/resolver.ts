/** Why a DNS question got no usable answer. NODATA is not a failure: it is an empty answer. */
export type DnsFailureKind = 'not_found' | 'server_failure' | 'refused' | 'timeout' | 'network';

/** A DNS question that failed; `kind` says how, so callers never read error strings. */
export class DnsQueryError extends Error {
  constructor(
    readonly kind: DnsFailureKind,
    readonly domain: string,
    readonly type: DnsRecordType,
    options?: { cause?: unknown; detail?: string },
  ) {
    super(
      `DNS ${type} ${domain}: ${DESCRIPTIONS[kind]}${options?.detail ? ` (${options.detail})` : ''}`,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = 'DnsQueryError';
  }

  /** True when asking again later may succeed (never for NXDOMAIN). */
  get temporary(): boolean {
    return this.kind !== 'not_found';
  }
}

const DESCRIPTIONS: Record<DnsFailureKind, string> = {
  not_found: 'domain does not exist (NXDOMAIN)',
  server_failure: 'server failure (SERVFAIL)',
  refused: 'query refused',
  timeout: 'no answer in time',
  network: 'network error',
};

export type DnsRecordType = 'MX' | 'A' | 'AAAA';

/** One MX record. A null MX (RFC 7505, `0 .`) has the exchange `''`. */
export interface MxRecord {
  exchange: string;
  priority: number;
}

/** The records of one answer and the smallest TTL among them, when the backend reports TTLs. */
export interface DnsAnswer<T> {
  records: T[];
  ttlSeconds?: number;
}

/**
 * The DNS questions email verification asks. Implementations return an empty answer for NODATA
 * and throw DnsQueryError for everything else that is not an answer.
 */
export interface DnsResolver {
  /** Which servers it asks (`127.0.0.1:53`, `system (10.0.0.2)`), for messages; never credentials. */
  readonly name?: string;
  /** MX records in the order received (callers sort). */
  mx(domain: string): Promise<DnsAnswer<MxRecord>>;
  /** IPv4 addresses. */
  a(domain: string): Promise<DnsAnswer<string>>;
  /** IPv6 addresses. */
  aaaa(domain: string): Promise<DnsAnswer<string>>;
}
