import { promises as dns } from 'node:dns';
import { KeyedLimiter } from '../../smtp/keyed-limiter.js';
import {
  type DnsAnswer,
  DnsQueryError,
  type DnsRecordType,
  type DnsResolver,
  type MxRecord,
} from '../resolver.js';

/** Options of the node:dns (c-ares) resolver backend. */
export interface NodeDnsResolverOptions {
  /**
   * Servers as `host` or `host:port` (`[v6]:port` for IPv6).
   * @default the system's resolvers (/etc/resolv.conf)
   */
  servers?: string[];
  /**
   * Per-try timeout in milliseconds.
   * @default 5000
   */
  timeoutMs?: number;
  /**
   * Tries per question (c-ares retries with doubling timeouts).
   * @default 2
   */
  tries?: number;
  /**
   * Questions waiting for an answer at once; more wait their turn. c-ares sends every question
   * the moment it is asked, and a burst of hundreds (a batch's domains) overflows a resolver's
   * socket buffer: the lost questions then wait out the whole timeout before being asked again.
   * @default 64
   */
  maxInFlight?: number;
}

// c-ares error codes → our kinds. ENODATA is handled as an empty answer before this table.
const KINDS: Record<string, DnsQueryError['kind']> = {
  ENOTFOUND: 'not_found',
  ESERVFAIL: 'server_failure',
  EREFUSED: 'refused',
  ETIMEOUT: 'timeout',
  ECONNREFUSED: 'network',
  ECANCELLED: 'timeout',
};

/** A DnsResolver on node:dns, the default backend. */
export function createNodeDnsResolver(options: NodeDnsResolverOptions = {}): DnsResolver {
  const timeout = options.timeoutMs ?? 5000;
  const tries = options.tries ?? 2;
  if (!Number.isInteger(timeout) || timeout <= 0)
    throw new TypeError(`timeoutMs must be a positive integer, got ${timeout}`);
  if (!Number.isInteger(tries) || tries <= 0)
    throw new TypeError(`tries must be a positive integer, got ${tries}`);
  const maxInFlight = options.maxInFlight ?? 64;
  if (!Number.isInteger(maxInFlight) || maxInFlight <= 0)
    throw new TypeError(`maxInFlight must be a positive integer, got ${maxInFlight}`);
  // One key: the limiter's per-key and global limits are the same cap.
  const inFlight = new KeyedLimiter(maxInFlight, maxInFlight);
  const resolver = new dns.Resolver({ timeout, tries });
  if (options.servers) resolver.setServers(options.servers);

  async function ask<T>(type: DnsRecordType, domain: string, query: () => Promise<DnsAnswer<T>>) {
    // Address questions go before MX questions: they are few (one per mail server, then cached)
    // and each one holds up the probe of every domain on that server, whereas MX questions come
    // in bulk, one per domain of a batch.
    const release = await inFlight.acquire('dns', undefined, { first: type !== 'MX' });
    try {
      return await query();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      if (code === 'ENODATA') return { records: [] };
      throw new DnsQueryError(KINDS[code] ?? 'network', domain, type, {
        cause: error,
        detail: code || undefined,
      });
    } finally {
      release();
    }
  }

  return {
    name: options.servers ? options.servers.join(', ') : `system (${resolver.getServers().join(', ')})`,
    mx: (domain) =>
      ask<MxRecord>('MX', domain, async () => ({
        records: (await resolver.resolveMx(domain)).map(({ exchange, priority }) => ({ exchange, priority })),
      })),
    a: (domain) => ask('A', domain, async () => withTtl(await resolver.resolve4(domain, { ttl: true }))),
    aaaa: (domain) =>
      ask('AAAA', domain, async () => withTtl(await resolver.resolve6(domain, { ttl: true }))),
  };
}

function withTtl(records: Array<{ address: string; ttl: number }>): DnsAnswer<string> {
  const answer: DnsAnswer<string> = { records: records.map((record) => record.address) };
  if (records.length > 0) answer.ttlSeconds = Math.min(...records.map((record) => record.ttl));
  return answer;
}
