import type { Socket } from 'node:net';
import { type DnsHandler, Packet } from 'dns2';
import { answerQuestion, type DnsOutcome } from './answer.js';
import { listenUdpAndTcp } from './listen.js';
import { queryKey } from './names.js';
import { type DnsServerOptions, resolveDnsOptions } from './options.js';
import { RCODE, typeName } from './records.js';
import { normalizeZoneName, validateEntry } from './validate.js';
import type { DnsZoneEntry } from './zone.js';

/** One query the server received. */
export interface DnsQueryRecord {
  /** The name asked, lower-cased, without trailing dot. */
  name: string;
  /** The query type: `'A'`, `'MX'`, ... or `'TYPE65'` for types without a name. */
  type: string;
  transport: 'udp' | 'tcp';
  /** When it arrived (`Date.now()`). */
  at: number;
  /** What the server did with it (decided on arrival; a delayed reply is sent later). */
  outcome: DnsOutcome;
}

/** A running fake DNS server. */
export interface FakeDnsServer {
  readonly host: string;
  /** The port of both the UDP and the TCP listener. */
  readonly port: number;
  /** `host:port` (`[::1]:port` for IPv6), ready for `resolver.setServers([address])`. */
  readonly address: string;
  /** Every query received since start or the last `resetRecords()`, oldest first. */
  readonly queries: readonly DnsQueryRecord[];
  /** Adds or replaces the entry of a name (validated like the start options; throws TypeError). */
  setZone(name: string, entry: DnsZoneEntry): void;
  /** Removes a name, which then answers NXDOMAIN (or its wildcard); returns whether it existed. */
  removeZone(name: string): boolean;
  /** Forgets the recorded queries. */
  resetRecords(): void;
  /** Stops both listeners, drops open TCP connections and pending replies. Safe to call twice. */
  close(): Promise<void>;
}

/** Starts a fake DNS server on loopback, serving `options.zones` over UDP and TCP. */
export async function startDnsServer(options: DnsServerOptions = {}): Promise<FakeDnsServer> {
  const { zones, host, port: wantedPort, ...defaults } = resolveDnsOptions(options);
  const queries: DnsQueryRecord[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const sockets = new Set<Socket>();
  let closed = false;

  const handler =
    (transport: 'udp' | 'tcp'): DnsHandler =>
    (request, send) => {
      if (closed) return;
      const response = Packet.createResponseFromRequest(request);
      response.header.aa = 1;
      const [question] = request.questions;
      if (!question || request.header.opcode !== 0) {
        response.header.rcode = question ? RCODE.NOTIMP : RCODE.FORMERR;
        deliver(send, response);
        return;
      }
      const answer = answerQuestion(zones, question.name, question.type, defaults);
      const at = Date.now();
      queries.push({
        name: queryKey(question.name),
        type: typeName(question.type),
        transport,
        at,
        outcome: answer.outcome,
      });
      if (answer.outcome === 'NO_ANSWER') return;
      response.header.rcode = answer.rcode;
      // dns2 encodes the AD bit but its typings lack the field.
      if (answer.authenticated) Object.assign(response.header, { ad: 1 });
      response.answers = answer.answers;
      response.authorities = answer.authorities;
      if (answer.delayMs <= 0) {
        deliver(send, response);
        return;
      }
      const timer = setTimeout(() => {
        timers.delete(timer);
        deliver(send, response);
      }, answer.delayMs);
      timers.add(timer);
    };

  const { udp, tcp, port } = await listenUdpAndTcp(host, wantedPort, handler('udp'), handler('tcp'));
  tcp.on('connection', (socket: Socket) => {
    if (closed) {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  // Errors after start (a client resetting its connection) concern one exchange, not the server.
  udp.on('error', () => {});
  tcp.on('error', () => {});

  let closing: Promise<void> | undefined;
  return {
    host,
    port,
    address: host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`,
    queries,
    setZone(name, entry) {
      const key = normalizeZoneName(name);
      zones.set(key, validateEntry(key, entry));
    },
    removeZone(name) {
      return zones.delete(normalizeZoneName(name));
    },
    resetRecords() {
      queries.length = 0;
    },
    close() {
      closing ??= (async () => {
        closed = true;
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        for (const socket of sockets) socket.destroy();
        await Promise.all([
          new Promise<void>((resolve) => udp.close(() => resolve())),
          new Promise<void>((resolve) => tcp.close(() => resolve())),
        ]);
      })();
      return closing;
    },
  };
}

/** Sends a reply, ignoring a client that has gone (closed TCP connection, closed socket). */
function deliver(send: Parameters<DnsHandler>[1], response: Packet): void {
  try {
    // dns2's TCP send returns nothing and its UDP send a promise; both may fail once closed.
    Promise.resolve(send(response)).catch(() => {});
  } catch {
    // Nothing to tell: the exchange is over.
  }
}
