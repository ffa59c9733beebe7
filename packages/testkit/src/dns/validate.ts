import {
  ipv4,
  ipv6,
  list,
  mx,
  object,
  type ServedSoa,
  soa,
  srv,
  txt,
  validateDelay,
  validateTtl,
} from './fields.js';
import { describe, normalizeDomain } from './names.js';
import type { DnsFailure, DnsMxRecord, DnsRecordType, DnsSrvRecord, DnsZones } from './zone.js';

/** A name's records after validation, in the form the answer builder serves. */
export interface ServedRecords {
  A: string[];
  AAAA: string[];
  CNAME: string | undefined;
  MX: DnsMxRecord[];
  /** Each record as its character-strings. */
  TXT: string[][];
  NS: string[];
  PTR: string[];
  SRV: DnsSrvRecord[];
  SOA: ServedSoa | undefined;
  ttl: number | undefined;
  delayMs: number | undefined;
  authenticated: boolean;
  fail: Partial<Record<DnsRecordType, DnsFailure>>;
}

/** A validated zone entry. */
export type ServedEntry = ServedRecords | 'NXDOMAIN' | DnsFailure;

const RECORD_TYPES: readonly DnsRecordType[] = ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'PTR', 'SRV', 'SOA'];
const FAILURES: readonly string[] = ['SERVFAIL', 'REFUSED', 'NO_ANSWER'];
const ENTRY_KEYS = new Set<string>([...RECORD_TYPES, 'ttl', 'delayMs', 'authenticated', 'fail']);

/** Validates every entry of `zones`; keys are normalised, and two keys naming one domain are an error. */
export function validateZones(zones: unknown): Map<string, ServedEntry> {
  if (zones === null || typeof zones !== 'object' || Array.isArray(zones)) {
    throw new TypeError(`DNS option zones must be an object keyed by domain name, got ${describe(zones)}`);
  }
  const served = new Map<string, ServedEntry>();
  for (const [key, entry] of Object.entries(zones as DnsZones)) {
    const name = normalizeZoneName(key);
    if (served.has(name)) throw new TypeError(`DNS zones name ${JSON.stringify(name)} more than once`);
    served.set(name, validateEntry(name, entry));
  }
  return served;
}

/** Normalises a zone key (wildcard `*.` allowed as first label). */
export function normalizeZoneName(key: unknown): string {
  return normalizeDomain(key, 'DNS zone name', true);
}

/** Validates one zone entry for the (normalised) `name`. */
export function validateEntry(name: string, entry: unknown): ServedEntry {
  const at = `DNS zone ${JSON.stringify(name)}`;
  if (typeof entry === 'string') {
    if (entry === 'NXDOMAIN' || FAILURES.includes(entry)) return entry as ServedEntry;
    throw new TypeError(
      `${at} must be records, 'NXDOMAIN', 'SERVFAIL', 'REFUSED' or 'NO_ANSWER', got ${describe(entry)}`,
    );
  }
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
    throw new TypeError(`${at} must be an object of records or a status string, got ${describe(entry)}`);
  }
  const raw = entry as Record<string, unknown>;
  for (const key of Object.keys(raw)) {
    if (!ENTRY_KEYS.has(key)) {
      throw new TypeError(
        `${at} has unknown field ${JSON.stringify(key)} (known: ${[...ENTRY_KEYS].join(', ')})`,
      );
    }
  }
  const records: ServedRecords = {
    A: list(raw.A, `${at} A`, ipv4),
    AAAA: list(raw.AAAA, `${at} AAAA`, ipv6),
    CNAME: raw.CNAME === undefined ? undefined : normalizeDomain(raw.CNAME, `${at} CNAME`),
    MX: list(raw.MX, `${at} MX`, mx),
    TXT: list(raw.TXT, `${at} TXT`, txt),
    NS: list(raw.NS, `${at} NS`, (v, w) => normalizeDomain(v, w)),
    PTR: list(raw.PTR, `${at} PTR`, (v, w) => normalizeDomain(v, w)),
    SRV: list(raw.SRV, `${at} SRV`, srv),
    SOA: soa(raw.SOA, `${at} SOA`),
    ttl: raw.ttl === undefined ? undefined : validateTtl(raw.ttl, `${at} ttl`),
    delayMs: raw.delayMs === undefined ? undefined : validateDelay(raw.delayMs, `${at} delayMs`),
    authenticated: authenticatedFlag(raw.authenticated, `${at} authenticated`),
    fail: failures(raw.fail, `${at} fail`),
  };
  if (records.CNAME !== undefined) {
    const others = RECORD_TYPES.filter((type) => type !== 'CNAME' && raw[type] !== undefined);
    // RFC 1034 §3.6.2: a CNAME owner holds no other data; a server serving both is broken.
    if (others.length > 0)
      throw new TypeError(`${at} has a CNAME, so it cannot also have ${others.join(', ')}`);
  }
  return records;
}

function authenticatedFlag(value: unknown, where: string): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean')
    throw new TypeError(`${where} must be true or false, got ${describe(value)}`);
  return value;
}

function failures(value: unknown, where: string): Partial<Record<DnsRecordType, DnsFailure>> {
  if (value === undefined) return {};
  const record = object(value, where);
  const result: Partial<Record<DnsRecordType, DnsFailure>> = {};
  for (const [type, failure] of Object.entries(record)) {
    if (!RECORD_TYPES.includes(type as DnsRecordType)) {
      throw new TypeError(`${where} has unknown record type ${JSON.stringify(type)}`);
    }
    if (typeof failure !== 'string' || !FAILURES.includes(failure)) {
      throw new TypeError(
        `${where}.${type} must be 'SERVFAIL', 'REFUSED' or 'NO_ANSWER', got ${describe(failure)}`,
      );
    }
    result[type as DnsRecordType] = failure as DnsFailure;
  }
  return result;
}
