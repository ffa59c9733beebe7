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

/**
 * Reply codes that speak about the target, not the proxy: the MX's network or host is
 * unreachable, it refused, or it did not answer in time. They are treated like a direct
 * connection's failure (next MX address), so a domain whose MX is unreachable cannot take the
 * proxies out of a pool. Every other code (1 general failure, 2 not allowed, 7, 8) is the proxy's.
 */
const TARGET_REPLY_CODES = new Set([3, 4, 5, 6]);

/** `host:port` of a proxy, the name it goes by in results and logs (never its credentials). */
export const proxyAddress = (proxy: Pick<Socks5ProxyOptions, 'host' | 'port'>): string =>
  net.isIPv6(proxy.host) ? `[${proxy.host}]:${proxy.port}` : `${proxy.host}:${proxy.port}`;

/**
 * Reads `socks5://[user[:password]@]host[:port]` (port 1080 by default; user and password
 * percent-decoded). `socks5h://` is accepted as the same: the prober always sends addresses.
 * The message of a bad URL never repeats the URL, which may hold a password.
 */
export function parseSocks5Url(text: string, where = 'proxy URL'): Socks5ProxyOptions {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new TypeError(`${where} must look like socks5://[user:password@]host:port`);
  }
  if (url.protocol !== 'socks5:' && url.protocol !== 'socks5h:')
    throw new TypeError(`${where} must use the socks5:// scheme, got ${url.protocol.replace(/:$/, '')}://`);
  if ((url.pathname !== '' && url.pathname !== '/') || url.search !== '' || url.hash !== '')
    throw new TypeError(`${where} must be socks5://[user:password@]host:port with nothing after the port`);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === '') throw new TypeError(`${where} has no host`);
  const proxy: Socks5ProxyOptions = { host, port: url.port === '' ? 1080 : Number(url.port) };
  if (url.username !== '' || url.password !== '') {
    proxy.username = decodeURIComponent(url.username);
    proxy.password = decodeURIComponent(url.password);
  }
  return proxy;
}

/**
 * A SocketFactory that tunnels each SMTP connection through a SOCKS5 proxy. A failure of the
 * proxy itself (connection refused, handshake not answered in time, authentication or method
 * refused, reply code 1/2/7/8, a malformed reply) is an SmtpConnectionError of kind
 * `proxy_failed`; a reply saying the target is unreachable, refused or silent is `connect_failed`
 * or `timeout`, as on a direct connection.
 */
export function socks5SocketFactory(proxy: Socks5ProxyOptions): SocketFactory {
  const withAuth = proxy.username !== undefined;
  if (
    withAuth &&
    (Buffer.byteLength(proxy.username ?? '') > 255 || Buffer.byteLength(proxy.password ?? '') > 255)
  ) {
    throw new TypeError('SOCKS5 username and password must be at most 255 bytes each');
  }
  const name = proxyAddress(proxy);
  return (host, port, signal) =>
    new Promise((resolve, reject) => {
      const socket = net.connect({ host: proxy.host, port: proxy.port });
      let buffered = Buffer.alloc(0);
      let stage: 'tcp' | 'greeting' | 'auth' | 'connect' = 'tcp';
      const fail = (kind: 'connect_failed' | 'timeout' | 'proxy_failed', message: string) => {
        signal.removeEventListener('abort', onAbort);
        socket.destroy();
        reject(new SmtpConnectionError(kind, `SOCKS5 proxy ${name}: ${message}`));
      };
      // Until the CONNECT request is out, a silent proxy is the proxy's failure; after it, the
      // proxy may be waiting for a silent MX, as a direct connection would.
      const onAbort = () =>
        stage === 'connect'
          ? fail('timeout', `connecting to ${host}:${port} timed out`)
          : fail(
              'proxy_failed',
              `no answer from the proxy (${stage === 'tcp' ? 'TCP connect' : 'handshake'})`,
            );
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      socket.once('error', (error) => fail('proxy_failed', error.message));
      socket.once('close', () => fail('proxy_failed', `closed the connection during the ${stage} stage`));
      socket.once('connect', () => {
        stage = 'greeting';
        socket.write(Buffer.from([5, 1, withAuth ? 2 : 0]));
      });
      socket.on('data', function onData(chunk: Buffer) {
        buffered = Buffer.concat([buffered, chunk]);
        if (stage === 'greeting') {
          if (buffered.length < 2) return;
          if (buffered[0] !== 5 || buffered[1] !== (withAuth ? 2 : 0))
            return fail('proxy_failed', 'no acceptable authentication method');
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
          if (buffered[1] !== 0) return fail('proxy_failed', 'authentication rejected');
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
        if (code !== 0) {
          const message = `${REPLY_MESSAGES[code] ?? `error ${code}`} (reply ${code}) for ${host}:${port}`;
          return fail(
            TARGET_REPLY_CODES.has(code) ? (code === 6 ? 'timeout' : 'connect_failed') : 'proxy_failed',
            message,
          );
        }
        // Paused, so the MX's first bytes (often in the same packet as the reply) wait for the
        // caller's reader instead of being emitted to no listener; the caller resumes it.
        socket.pause();
        socket.off('data', onData);
        signal.removeEventListener('abort', onAbort);
        socket.removeAllListeners('error');
        socket.removeAllListeners('close');
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
