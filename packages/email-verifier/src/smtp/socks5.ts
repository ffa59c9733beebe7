import net from 'node:net';
import { addressToBytes, parseIp } from '@svc/ip-address';
import { SmtpConnectionError, type SocketFactory } from './connection.js';

/** A SOCKS5 proxy (RFC 1928) with optional username/password authentication (RFC 1929). */
export interface Socks5ProxyOptions {
  host: string;
  port: number;
  username?: string;
  password?: string;
}

const REPLY_MESSAGES: Record<number, string> = {
  1: 'general failure',
  2: 'connection not allowed by ruleset',
  3: 'network unreachable',
  4: 'host unreachable',
  5: 'connection refused',
  6: 'TTL expired',
  7: 'command not supported',
  8: 'address type not supported',
};

/** A SocketFactory that tunnels each SMTP connection through a SOCKS5 proxy. */
export function socks5SocketFactory(proxy: Socks5ProxyOptions): SocketFactory {
  const withAuth = proxy.username !== undefined;
  if (
    withAuth &&
    (Buffer.byteLength(proxy.username ?? '') > 255 || Buffer.byteLength(proxy.password ?? '') > 255)
  ) {
    throw new TypeError('SOCKS5 username and password must be at most 255 bytes each');
  }
  return (host, port, signal) =>
    new Promise((resolve, reject) => {
      const socket = net.connect({ host: proxy.host, port: proxy.port });
      let buffered = Buffer.alloc(0);
      let stage: 'greeting' | 'auth' | 'connect' = 'greeting';
      const fail = (kind: 'connect_failed' | 'timeout' | 'protocol', message: string) => {
        signal.removeEventListener('abort', onAbort);
        socket.destroy();
        reject(new SmtpConnectionError(kind, `SOCKS5 proxy ${proxy.host}:${proxy.port}: ${message}`));
      };
      const onAbort = () => fail('timeout', `connecting to ${host}:${port} timed out`);
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      socket.once('error', (error) => fail('connect_failed', error.message));
      socket.once('connect', () => socket.write(Buffer.from([5, 1, withAuth ? 2 : 0])));
      socket.on('data', function onData(chunk: Buffer) {
        buffered = Buffer.concat([buffered, chunk]);
        if (stage === 'greeting') {
          if (buffered.length < 2) return;
          if (buffered[0] !== 5 || buffered[1] !== (withAuth ? 2 : 0))
            return fail('protocol', 'no acceptable auth method');
          buffered = buffered.subarray(2);
          if (withAuth) {
            stage = 'auth';
            const user = Buffer.from(proxy.username ?? '');
            const pass = Buffer.from(proxy.password ?? '');
            socket.write(
              Buffer.concat([Buffer.from([1, user.length]), user, Buffer.from([pass.length]), pass]),
            );
            return;
          }
          stage = 'connect';
          socket.write(connectRequest(host, port));
          return;
        }
        if (stage === 'auth') {
          if (buffered.length < 2) return;
          if (buffered[1] !== 0) return fail('connect_failed', 'authentication rejected');
          buffered = buffered.subarray(2);
          stage = 'connect';
          socket.write(connectRequest(host, port));
          return;
        }
        // CONNECT reply: VER REP RSV ATYP BND.ADDR BND.PORT
        if (buffered.length < 5) return;
        const addressType = buffered[3];
        const addressLength = addressType === 1 ? 4 : addressType === 4 ? 16 : 1 + (buffered[4] ?? 0);
        if (buffered.length < 4 + addressLength + 2) return;
        const code = buffered[1] ?? 1;
        if (code !== 0) return fail('connect_failed', REPLY_MESSAGES[code] ?? `error ${code}`);
        socket.off('data', onData);
        signal.removeEventListener('abort', onAbort);
        socket.removeAllListeners('error');
        const rest = buffered.subarray(4 + addressLength + 2);
        if (rest.length > 0) socket.unshift(rest);
        resolve(socket);
      });
    });
}

function connectRequest(host: string, port: number): Buffer {
  const portBytes = Buffer.from([port >> 8, port & 0xff]);
  if (net.isIPv4(host)) {
    return Buffer.concat([Buffer.from([5, 1, 0, 1, ...host.split('.').map(Number)]), portBytes]);
  }
  if (net.isIPv6(host)) {
    const bytes = addressToBytes(parseIp(host));
    // An IPv4-mapped literal parses as IPv4: send it as an IPv4 address then.
    return Buffer.concat([Buffer.from([5, 1, 0, bytes.length === 4 ? 1 : 4, ...bytes]), portBytes]);
  }
  const name = Buffer.from(host);
  return Buffer.concat([Buffer.from([5, 1, 0, 3, name.length]), name, portBytes]);
}
