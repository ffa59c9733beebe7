/** The record types the fake DNS server can serve. */
export type DnsRecordType = 'A' | 'AAAA' | 'CNAME' | 'MX' | 'TXT' | 'NS' | 'PTR' | 'SRV' | 'SOA';

/**
 * A broken answer: `SERVFAIL` and `REFUSED` reply with that response code, `NO_ANSWER` never
 * replies at all (the client times out).
 */
export type DnsFailure = 'SERVFAIL' | 'REFUSED' | 'NO_ANSWER';

/** One MX record. An `exchange` of `'.'` with priority 0 is an RFC 7505 null MX. */
export interface DnsMxRecord {
  /** The preference (0-65535, lower is preferred); served as given, never sorted. */
  priority: number;
  /** The mail exchanger's host name, or `'.'` for a null MX. */
  exchange: string;
}

/** One SRV record (RFC 2782). */
export interface DnsSrvRecord {
  /** 0-65535, lower is preferred. */
  priority: number;
  /** 0-65535, relative weight among records of equal priority. */
  weight: number;
  /** 0-65535. */
  port: number;
  /** The target host name. */
  target: string;
}

/** An SOA record; served in the authority section of negative answers at and below its name. */
export interface DnsSoaRecord {
  /** The primary name server. */
  primary: string;
  /** The responsible mailbox as a domain name, e.g. `hostmaster.example.test`. */
  admin: string;
  /** @default 1 */
  serial?: number;
  /** @default 3600 */
  refresh?: number;
  /** @default 600 */
  retry?: number;
  /** @default 86400 */
  expiration?: number;
  /** The negative-caching TTL (RFC 2308). @default the name's TTL */
  minimum?: number;
}

/**
 * One TXT record: a string (split into 255-byte character-strings when longer), or the
 * character-strings themselves, each at most 255 bytes of UTF-8.
 */
export type DnsTxtRecord = string | readonly string[];

/**
 * The records of one name. A name with no records of the asked type answers NOERROR with an
 * empty answer (NODATA) and an SOA in the authority section.
 */
export interface DnsNameRecords {
  /** IPv4 addresses in dotted-decimal form. */
  A?: readonly string[];
  /** IPv6 addresses (any textual form, no zone id). */
  AAAA?: readonly string[];
  /** An alias; a name with a CNAME may hold nothing else. Targets in the zones are followed. */
  CNAME?: string;
  /** Served in the order given, with the given priorities. */
  MX?: readonly DnsMxRecord[];
  TXT?: readonly DnsTxtRecord[];
  NS?: readonly string[];
  PTR?: readonly string[];
  SRV?: readonly DnsSrvRecord[];
  SOA?: DnsSoaRecord;
  /**
   * TTL in seconds of this name's records.
   * @default the server's `ttl`
   */
  ttl?: number;
  /**
   * Milliseconds to wait before answering any query for this name.
   * @default the server's `defaultDelayMs`
   */
  delayMs?: number;
  /**
   * Answers for this name carry the AD (authentic data) bit, as a DNSSEC-validating resolver sets
   * it for a signed name (RFC 4035 §3.2.3). Nothing is signed: it lets a client's DNSSEC check be
   * tested.
   * @default false
   */
  authenticated?: boolean;
  /**
   * Per-type failures, e.g. `{ MX: 'SERVFAIL' }` while A still answers.
   * @default {}
   */
  fail?: Partial<Record<DnsRecordType, DnsFailure>>;
}

/** What a name answers: its records, or `NXDOMAIN` / a failure for every query type. */
export type DnsZoneEntry = DnsNameRecords | 'NXDOMAIN' | DnsFailure;

/**
 * The names the server knows, keyed by domain name (case-insensitive, trailing dot allowed,
 * Unicode names converted to A-labels). A key `*.example.test` is a wildcard answering any name
 * below `example.test` that has no entry of its own (the most specific wildcard wins).
 * Names absent from the zones answer NXDOMAIN.
 */
export type DnsZones = Readonly<Record<string, DnsZoneEntry>>;
