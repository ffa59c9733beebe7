import DNS from 'dns2';
import {
  type DnsAnswer,
  DnsQueryError,
  type DnsRecordType,
  type DnsResolver,
  type MxRecord,
} from '../resolver.js';
import {
  buildQuery,
  type Dns2Transport,
  dohTransport,
  tcpTransport,
  udpTransport,
} from './dns2-transports.js';

const { Packet } = DNS;

/** Options of the dns2 backend: one chosen server, over UDP, TCP or DNS-over-HTTPS. */
export interface Dns2ResolverOptions {
  /** `host:port` (`[v6]:port`) for UDP and TCP, or an `https://…/dns-query` URL for DoH. */
  server: string;
  /**
   * How to reach the server.
   * @default 'udp' (or 'doh' when server is an http(s) URL)
   */
  transport?: 'udp' | 'tcp' | 'doh';
  /**
   * Timeout per try in milliseconds.
   * @default 5000
   */
  timeoutMs?: number;
  /**
   * Tries per question; only timeouts and network errors are tried again.
   * @default 2
   */
  tries?: number;
  /** fetch used for DoH (tests, proxies). @default globalThis.fetch */
  fetch?: typeof fetch;
}

// RFC 1035 §4.1.1 response codes.
const RCODE_KINDS: Record<number, DnsQueryError['kind']> = {
  2: 'server_failure',
  3: 'not_found',
  5: 'refused',
};

/** A DnsResolver that asks one configured server through dns2's packet codec. */
export function createDns2Resolver(options: Dns2ResolverOptions): DnsResolver {
  const transport = pickTransport(options);
  const timeoutMs = options.timeoutMs ?? 5000;
  const tries = options.tries ?? 2;
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    throw new TypeError(`timeoutMs must be a positive integer, got ${timeoutMs}`);
  }
  if (!Number.isInteger(tries) || tries <= 0)
    throw new TypeError(`tries must be a positive integer, got ${tries}`);

  async function ask(domain: string, type: DnsRecordType): Promise<DNS.Packet> {
    let lastError: unknown;
    for (let attempt = 0; attempt < tries; attempt++) {
      try {
        return await transport(buildQuery(domain, type), timeoutMs);
      } catch (error) {
        lastError = error;
      }
    }
    const code = (lastError as NodeJS.ErrnoException).code;
    const kind = code === 'ETIMEOUT' ? 'timeout' : code === 'ESERVFAIL' ? 'server_failure' : 'network';
    throw new DnsQueryError(kind, domain, type, { cause: lastError, detail: code });
  }

  async function answer<T>(domain: string, type: DnsRecordType, pick: (record: DNS.Packet.Resource) => T) {
    const response = await ask(domain, type);
    const kind = RCODE_KINDS[response.header.rcode];
    if (kind) throw new DnsQueryError(kind, domain, type, { detail: `rcode ${response.header.rcode}` });
    if (response.header.rcode !== 0) {
      throw new DnsQueryError('server_failure', domain, type, { detail: `rcode ${response.header.rcode}` });
    }
    // Follow the answer section only for the asked type; CNAME records in it lead to the same data.
    const records = response.answers.filter((record) => record.type === Packet.TYPE[type]);
    const result: DnsAnswer<T> = { records: records.map(pick) };
    if (records.length > 0) result.ttlSeconds = Math.min(...records.map((record) => record.ttl));
    return result;
  }

  return {
    name: options.server,
    mx: (domain) =>
      answer<MxRecord>(domain, 'MX', (record) => ({
        // dns2 decodes the root name of a null MX as '' or '.': normalise to ''.
        exchange: (record.exchange ?? '').replace(/\.$/, ''),
        priority: record.priority ?? 0,
      })),
    a: (domain) => answer(domain, 'A', (record) => record.address ?? ''),
    aaaa: (domain) => answer(domain, 'AAAA', (record) => record.address ?? ''),
  };
}

function pickTransport(options: Dns2ResolverOptions): Dns2Transport {
  const isUrl = /^https?:\/\//i.test(options.server);
  const kind = options.transport ?? (isUrl ? 'doh' : 'udp');
  if (kind === 'doh') {
    if (!isUrl) throw new TypeError(`DoH needs an http(s) URL as server, got "${options.server}"`);
    return dohTransport(options.server, options.fetch);
  }
  const match = /^(?:\[([0-9a-f:.]+)\]|([^:[\]]+)):(\d{1,5})$/i.exec(options.server);
  const port = Number(match?.[3]);
  if (!match || port < 1 || port > 65535) {
    throw new TypeError(`server must be "host:port" (or "[v6]:port"), got "${options.server}"`);
  }
  const host = (match[1] ?? match[2]) as string;
  return kind === 'tcp' ? tcpTransport(host, port) : udpTransport(host, port);
}
