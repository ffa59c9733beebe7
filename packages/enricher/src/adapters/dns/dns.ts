import type {
  AdapterContext,
  AdapterError,
  CompanyQuery,
  EnrichmentAdapter,
  LookupOutcome,
} from '../../adapter.js';
import { DNS_SIGNATURES, type DnsSignature } from './signatures.js';
import { findSpf, joinTxt, spfTargets } from './spf.js';

/** Options of the DNS adapter. */
export interface DnsAdapterOptions {
  /** The evidence table. @default DNS_SIGNATURES */
  signatures?: readonly DnsSignature[];
  /**
   * Most TXT lookups spent following SPF includes, per company. RFC 7208 §4.6.4 caps a receiver
   * at 10 DNS-querying terms; we keep the same bound so a hostile record cannot fan out.
   * @default 10
   */
  maxSpfLookups?: number;
  /** Confidence of a hit: DNS records are the domain's own statement, but may be stale. @default 0.9 */
  confidence?: number;
}

/** Thrown inside a lookup to end it with a typed error (never leaves the adapter). */
class LookupFailure extends Error {
  constructor(readonly error: AdapterError) {
    super(error.message);
  }
}

/**
 * The DNS adapter (no key): a company's MX, TXT, SPF includes and verification tokens →
 * the technologies in `signatures`. It uses only `context.dns`, so tests and operators choose the
 * resolver. A hit has `technologies` (and the domain); a domain with no matching record is a miss.
 */
export function createDnsAdapter(options: DnsAdapterOptions = {}): EnrichmentAdapter<'company'> {
  const signatures = options.signatures ?? DNS_SIGNATURES;
  const maxSpfLookups = options.maxSpfLookups ?? 10;
  const confidence = options.confidence ?? 0.9;
  if (!Number.isInteger(maxSpfLookups) || maxSpfLookups < 0) {
    throw new TypeError(`maxSpfLookups must be an integer ≥ 0, got ${String(maxSpfLookups)}`);
  }
  if (!(confidence > 0 && confidence <= 1)) {
    throw new TypeError(`confidence must be in (0, 1], got ${String(confidence)}`);
  }
  return {
    id: 'dns',
    kind: 'company',
    accepts: ['domain'],
    provides: ['domain', 'technologies'],
    cost: 0,
    billsMisses: false,
    // Mail and SaaS set-ups change over months; a miss may be a domain about to be set up.
    ttl: { hitSeconds: 7 * 86_400, missSeconds: 86_400 },
    concurrency: 16,
    async lookup(query: CompanyQuery, context: AdapterContext): Promise<LookupOutcome<'company'>> {
      try {
        const technologies = await detect(query.domain, context, signatures, maxSpfLookups);
        if (technologies.length === 0) return { type: 'miss', cost: 0 };
        return {
          type: 'hit',
          cost: 0,
          candidates: [{ fields: { domain: query.domain, technologies }, confidence }],
        };
      } catch (error) {
        if (error instanceof LookupFailure) return { type: 'error', error: error.error, cost: 0 };
        return {
          type: 'error',
          error: { kind: 'upstream', message: `DNS lookup failed: ${String(error)}` },
          cost: 0,
        };
      }
    },
  };
}

async function detect(
  domain: string,
  context: AdapterContext,
  signatures: readonly DnsSignature[],
  maxSpfLookups: number,
): Promise<string[]> {
  const [mx, txt] = await Promise.all([
    ask(context, domain, 'MX', () => context.dns.resolveMx(domain)),
    ask(context, domain, 'TXT', () => context.dns.resolveTxt(domain)),
  ]);
  const found = new Set<string>();
  const records = txt.map(joinTxt);
  for (const { exchange } of mx) {
    for (const signature of signatures) if (hostMatches(exchange, signature.mx)) found.add(signature.name);
  }
  const spf = findSpf(records);
  if (spf) await followSpf(spf, context, signatures, maxSpfLookups, found);
  for (const record of records) {
    const text = record.trim().toLowerCase();
    for (const signature of signatures) {
      if (signature.txt?.some((prefix) => text.startsWith(prefix.toLowerCase()))) found.add(signature.name);
    }
  }
  return [...found];
}

/**
 * Walks SPF includes breadth first. A host that matches a signature is not followed (its vendor is
 * known, and vendors' own records only list their netblocks); other hosts, typically the
 * company's own `spf.example.com`, are read for the senders behind them. A nested lookup that
 * fails is skipped: the domain's own records already answered, and one broken include should not
 * hide the rest.
 */
async function followSpf(
  record: string,
  context: AdapterContext,
  signatures: readonly DnsSignature[],
  maxLookups: number,
  found: Set<string>,
): Promise<void> {
  const seen = new Set<string>();
  let queue = spfTargets(record);
  let lookups = 0;
  while (queue.length > 0) {
    const next: string[] = [];
    for (const host of queue) {
      if (seen.has(host)) continue;
      seen.add(host);
      const matched = signatures.filter((signature) => hostMatches(host, signature.spf));
      for (const signature of matched) found.add(signature.name);
      if (matched.length > 0 || lookups >= maxLookups) continue;
      lookups++;
      let nested: string[][];
      try {
        nested = await ask(context, host, 'TXT', () => context.dns.resolveTxt(host));
      } catch (error) {
        // An abort ends the whole lookup; anything else only this branch.
        if (error instanceof LookupFailure && context.signal.aborted) throw error;
        continue;
      }
      const nestedSpf = findSpf(nested.map(joinTxt));
      if (nestedSpf) next.push(...spfTargets(nestedSpf));
    }
    queue = next;
  }
}

/** `host` is `suffix` or a name below it, compared without case or trailing dot. */
function hostMatches(host: string, suffixes: readonly string[] | undefined): boolean {
  if (!suffixes) return false;
  const name = host.toLowerCase().replace(/\.$/, '');
  return suffixes.some((suffix) => name === suffix || name.endsWith(`.${suffix}`));
}

type NodeDnsError = Error & { code?: string };

/**
 * One DNS question, raced against the abort signal (node's resolvers take none). "No such name"
 * and "no records of this type" are answers (empty); a timeout or a server failure is a typed
 * error, so the orchestrator does not cache a miss the DNS never gave.
 */
async function ask<T>(
  context: AdapterContext,
  name: string,
  type: string,
  query: () => Promise<T[]>,
): Promise<T[]> {
  const { signal } = context;
  const aborted = (): LookupFailure =>
    new LookupFailure({ kind: 'timeout', message: `DNS ${type} lookup of ${name} aborted` });
  if (signal.aborted) throw aborted();
  let onAbort: (() => void) | undefined;
  const abort = new Promise<never>((_, reject) => {
    onAbort = () => reject(aborted());
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([query(), abort]);
  } catch (error) {
    if (error instanceof LookupFailure) throw error;
    const code = (error as NodeDnsError).code;
    if (code === 'ENODATA' || code === 'ENOTFOUND') return [];
    if (code === 'ETIMEOUT') {
      throw new LookupFailure({ kind: 'timeout', message: `DNS ${type} lookup of ${name} timed out` });
    }
    throw new LookupFailure({
      kind: 'upstream',
      message: `DNS ${type} lookup of ${name} failed (${code ?? (error as Error).message})`,
    });
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}
