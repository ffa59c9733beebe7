import { queryKey } from './names.js';
import { RCODE, type ResourceRecord, resourcesOf, SERVED_TYPES, soaResource } from './records.js';
import type { ServedEntry } from './validate.js';
import type { DnsFailure } from './zone.js';

/**
 * How the server treated a query: `NOERROR` with answers, `NODATA` (NOERROR, empty answer),
 * `NXDOMAIN`, `SERVFAIL`, `REFUSED`, or `NO_ANSWER` (no reply sent).
 */
export type DnsOutcome = 'NOERROR' | 'NODATA' | 'NXDOMAIN' | DnsFailure;

/** The reply to one question, before it is delayed and sent. */
export interface Answer {
  outcome: DnsOutcome;
  rcode: number;
  answers: ResourceRecord[];
  authorities: ResourceRecord[];
  delayMs: number;
  /** Set the AD bit (the name's `authenticated`). */
  authenticated: boolean;
}

/** Server-wide values used where a name sets none. */
export interface AnswerDefaults {
  ttl: number;
  defaultDelayMs: number;
}

// Real resolvers give up on chains longer than this; it also ends CNAME loops.
const MAX_CNAME_HOPS = 8;

/** Builds the reply to a question for `name` (as asked) and wire type `type` from the zones. */
export function answerQuestion(
  zones: ReadonlyMap<string, ServedEntry>,
  name: string,
  type: number,
  defaults: AnswerDefaults,
): Answer {
  const served = SERVED_TYPES.get(type);
  let key = queryKey(name);
  let owner = name;
  let entry = lookup(zones, key);
  const delayMs = (typeof entry === 'object' ? entry.delayMs : undefined) ?? defaults.defaultDelayMs;
  const authenticated = typeof entry === 'object' && entry.authenticated;
  const answers: ResourceRecord[] = [];
  const reply = (outcome: DnsOutcome, authorities: ResourceRecord[] = []): Answer => ({
    outcome,
    rcode: RCODE[outcome === 'NODATA' || outcome === 'NO_ANSWER' ? 'NOERROR' : outcome],
    answers,
    authorities,
    delayMs,
    authenticated,
  });

  for (let hops = 0; ; hops++) {
    // A CNAME pointing outside the zones: answer the chain and let the client go on from there.
    if (entry === undefined && answers.length > 0) return reply('NOERROR');
    if (entry === undefined || entry === 'NXDOMAIN') {
      return reply('NXDOMAIN', [negativeSoa(zones, key, defaults.ttl)]);
    }
    if (typeof entry === 'string') return reply(entry);
    const failure = served && entry.fail[served];
    if (failure) return reply(failure);
    const ttl = entry.ttl ?? defaults.ttl;
    if (entry.CNAME !== undefined && served !== 'CNAME') {
      answers.push(...resourcesOf(entry, 'CNAME', owner, ttl));
      if (hops >= MAX_CNAME_HOPS) return reply('NOERROR');
      key = owner = entry.CNAME;
      entry = lookup(zones, key);
      continue;
    }
    const found = served ? resourcesOf(entry, served, owner, ttl) : [];
    if (found.length === 0 && answers.length === 0) return reply('NODATA', [negativeSoa(zones, key, ttl)]);
    answers.push(...found);
    return reply('NOERROR');
  }
}

/** The entry for `key`: its own, else the most specific wildcard above it. */
function lookup(zones: ReadonlyMap<string, ServedEntry>, key: string): ServedEntry | undefined {
  const exact = zones.get(key);
  if (exact !== undefined || key === '') return exact;
  const labels = key.split('.');
  for (let i = 1; i <= labels.length; i++) {
    const parent = labels.slice(i).join('.');
    const wildcard = zones.get(parent ? `*.${parent}` : '*');
    if (wildcard !== undefined) return wildcard;
  }
  return undefined;
}

/**
 * The SOA for a negative answer (RFC 2308 §3): the closest enclosing name's own SOA, else a
 * made-up one for the name's last two labels so negative caching still has a TTL to use.
 */
function negativeSoa(zones: ReadonlyMap<string, ServedEntry>, key: string, ttl: number): ResourceRecord {
  const labels = key.split('.');
  for (let i = 0; i < labels.length; i++) {
    const owner = labels.slice(i).join('.');
    const entry = zones.get(owner);
    if (typeof entry === 'object' && entry.SOA) return soaResource(entry.SOA, owner, entry.ttl ?? ttl);
  }
  const apex = labels.slice(-2).join('.');
  const soa = {
    primary: apex ? `ns.${apex}` : 'ns',
    admin: apex ? `hostmaster.${apex}` : 'hostmaster',
    serial: 1,
    refresh: 3600,
    retry: 600,
    expiration: 86400,
    minimum: ttl,
  };
  return soaResource(soa, apex, ttl);
}
