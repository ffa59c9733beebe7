import { randomInt } from 'node:crypto';
import dgram from 'node:dgram';
import net from 'node:net';
import DNS from 'dns2';

const { Packet } = DNS;
type Packet = DNS.Packet;

/** Sends one encoded query and resolves with the decoded response; rejects with code ETIMEOUT on timeout. */
export type Dns2Transport = (query: Packet, timeoutMs: number) => Promise<Packet>;

/** Builds a recursive query with a random id. */
export function buildQuery(name: string, type: 'MX' | 'A' | 'AAAA'): Packet {
  const query = new Packet();
  query.header.id = randomInt(0x10000);
  query.header.rd = 1;
  query.questions.push({ name, type: Packet.TYPE[type], class: Packet.CLASS.IN } as DNS.Packet.Question);
  return query;
}

function timeoutError(timeoutMs: number): Error {
  return Object.assign(new Error(`no DNS answer within ${timeoutMs} ms`), { code: 'ETIMEOUT' });
}

/** Plain DNS over UDP; a truncated answer is asked again over TCP (RFC 7766). */
export function udpTransport(host: string, port: number): Dns2Transport {
  const tcp = tcpTransport(host, port);
  return (query, timeoutMs) =>
    new Promise<Packet>((resolve, reject) => {
      const socket = dgram.createSocket(net.isIPv6(host) ? 'udp6' : 'udp4');
      const timer = setTimeout(() => finish(timeoutError(timeoutMs)), timeoutMs);
      function finish(error: Error | null, response?: Packet) {
        clearTimeout(timer);
        socket.close();
        if (error) reject(error);
        else resolve(response as Packet);
      }
      socket.on('error', (error) => finish(error));
      socket.on('message', (message, remote) => {
        // Ignore strays: answers must come from the server we asked, with our id.
        if (remote.port !== port) return;
        let response: Packet;
        try {
          response = Packet.parse(message);
        } catch {
          return;
        }
        if (response.header.id !== query.header.id) return;
        if (response.header.tc) {
          clearTimeout(timer);
          socket.close();
          tcp(query, timeoutMs).then(resolve, reject);
          return;
        }
        finish(null, response);
      });
      socket.send(query.toBuffer(), port, host, (error) => {
        if (error) finish(error);
      });
    });
}

/** DNS over TCP with the two-byte length prefix (RFC 1035 §4.2.2). */
export function tcpTransport(host: string, port: number): Dns2Transport {
  return (query, timeoutMs) =>
    new Promise<Packet>((resolve, reject) => {
      const socket = net.connect({ host, port });
      const timer = setTimeout(() => finish(timeoutError(timeoutMs)), timeoutMs);
      let buffered = Buffer.alloc(0);
      function finish(error: Error | null, response?: Packet) {
        clearTimeout(timer);
        socket.destroy();
        if (error) reject(error);
        else resolve(response as Packet);
      }
      socket.on('error', (error) => finish(error));
      socket.on('data', (chunk: Buffer) => {
        buffered = Buffer.concat([buffered, chunk]);
        if (buffered.length < 2) return;
        const length = buffered.readUInt16BE(0);
        if (buffered.length < 2 + length) return;
        try {
          finish(null, Packet.parse(buffered.subarray(2, 2 + length)));
        } catch (error) {
          finish(error as Error);
        }
      });
      socket.on('end', () =>
        finish(Object.assign(new Error('DNS server closed the connection'), { code: 'ECONNRESET' })),
      );
      const message = query.toBuffer();
      const prefix = Buffer.alloc(2);
      prefix.writeUInt16BE(message.length);
      socket.write(Buffer.concat([prefix, message]));
    });
}

/** DNS over HTTPS (RFC 8484): POST application/dns-message to the given URL. */
export function dohTransport(url: string, fetchImpl: typeof fetch = fetch): Dns2Transport {
  return async (query, timeoutMs) => {
    // RFC 8484 §4.1: use id 0 so answers are cacheable.
    query.header.id = 0;
    let response: Response;
    try {
      response = await fetchImpl(url, {
        method: 'POST',
        headers: { 'content-type': 'application/dns-message', accept: 'application/dns-message' },
        body: query.toBuffer(),
        signal: AbortSignal.timeout(timeoutMs),
        redirect: 'error',
      });
    } catch (error) {
      if ((error as Error).name === 'TimeoutError') throw timeoutError(timeoutMs);
      throw error;
    }
    if (!response.ok) {
      throw Object.assign(new Error(`DoH server answered HTTP ${response.status}`), {
        code: response.status >= 500 ? 'ESERVFAIL' : 'EREFUSED',
      });
    }
    return Packet.parse(Buffer.from(await response.arrayBuffer()));
  };
}
