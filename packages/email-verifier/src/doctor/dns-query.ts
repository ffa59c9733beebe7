import { randomInt } from 'node:crypto';
import { getServers } from 'node:dns';
import DNS from 'dns2';
import { udpTransport } from '../dns/backends/dns2-transports.js';

const { Packet } = DNS;

/** The question types the doctor asks. */
export type DoctorQuestionType = 'A' | 'AAAA' | 'MX' | 'TXT' | 'PTR';

/** One reply as the doctor reads it: the response code, the AD bit and the records of the asked type. */
export interface DoctorDnsReply {
  /** RFC 1035 response code: 0 NOERROR, 2 SERVFAIL, 3 NXDOMAIN, 5 REFUSED … */
  rcode: number;
  /** The resolver vouches for the answer with DNSSEC (the AD bit, RFC 4035 §3.2.3). */
  authenticated: boolean;
  /** Addresses (A/AAAA), exchanges (MX), names (PTR) or joined strings (TXT), in the order received. */
  values: string[];
  elapsedMs: number;
}

/** Asks one question; rejects (with `code` `ETIMEOUT` for a timeout) when no reply came. */
export type DoctorDnsAsk = (name: string, type: DoctorQuestionType) => Promise<DoctorDnsReply>;

/**
 * The resolver the doctor asks: `server` (`host:port`, `[v6]:port`, or a bare address for port 53),
 * else the first of this system's resolvers (`/etc/resolv.conf`, as node:dns reads it). Raw packets
 * rather than node:dns, because only the reply header tells whether the resolver validates DNSSEC.
 */
export function createDoctorDns(
  server: string | undefined,
  timeoutMs: number,
): { server: string; ask: DoctorDnsAsk } {
  const chosen = server ?? getServers()[0];
  if (chosen === undefined) throw new TypeError('no DNS server configured on this system; pass dnsServer');
  const { host, port } = parseServer(chosen);
  const transport = udpTransport(host, port);
  const label = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  return {
    server: label,
    async ask(name, type) {
      const query = new Packet();
      query.header.id = randomInt(0x10000);
      query.header.rd = 1;
      // AD in a query asks for the AD bit in the answer (RFC 6840 §5.7); DO (in the OPT record,
      // RFC 3225) is what makes most resolvers report it at all.
      Object.assign(query.header, { ad: 1 });
      query.questions.push({ name, type: Packet.TYPE[type], class: Packet.CLASS.IN } as DNS.Packet.Question);
      query.additionals.push({
        name: '',
        type: Packet.TYPE.EDNS,
        class: 1232,
        ttl: 0x8000,
        rdata: [],
      } as never);
      const started = performance.now();
      const response = await transport(query, timeoutMs);
      const elapsedMs = Math.round(performance.now() - started);
      const wanted = Packet.TYPE[type];
      const values = response.answers
        .filter((record) => record.type === wanted)
        .map((record) => recordValue(type, record));
      return {
        rcode: response.header.rcode,
        authenticated: (response.header as unknown as { ad?: number }).ad === 1,
        values,
        elapsedMs,
      };
    },
  };
}

function recordValue(type: DoctorQuestionType, record: DNS.Packet.Resource): string {
  switch (type) {
    case 'A':
    case 'AAAA':
      return record.address ?? '';
    case 'MX':
      return (record.exchange ?? '').replace(/\.$/, '');
    case 'PTR':
      return (record.domain ?? '').replace(/\.$/, '').toLowerCase();
    case 'TXT':
      return Array.isArray(record.data) ? record.data.join('') : (record.data ?? '');
  }
}

/** `host:port`, `[v6]:port`, or a bare IPv4/IPv6 address (port 53). */
export function parseServer(server: string): { host: string; port: number } {
  const bracketed = /^\[([0-9a-f:.]+)\](?::(\d{1,5}))?$/i.exec(server);
  const plain = /^([^:[\]]+)(?::(\d{1,5}))?$/.exec(server);
  const bareV6 = /^[0-9a-f:.]+$/i.test(server) && server.includes(':') && !plain;
  const host = bracketed?.[1] ?? plain?.[1] ?? (bareV6 ? server : undefined);
  const port = Number(bracketed?.[2] ?? plain?.[2] ?? 53);
  if (host === undefined || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new TypeError(`dnsServer must be "host:port", "[v6]:port" or an address, got "${server}"`);
  }
  return { host, port };
}

/** Words for a failed question: SERVFAIL, refused, timed out … */
export function describeDnsFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ETIMEOUT') return 'no answer in time';
  return (error as Error).message;
}

/** Words for a response code. */
export function rcodeName(rcode: number): string {
  return (
    (
      { 0: 'NOERROR', 1: 'FORMERR', 2: 'SERVFAIL', 3: 'NXDOMAIN', 4: 'NOTIMP', 5: 'REFUSED' } as Record<
        number,
        string
      >
    )[rcode] ?? `rcode ${rcode}`
  );
}
