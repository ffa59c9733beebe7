import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SmtpConnectionError } from './connection.js';
import { socks5SocketFactory } from './socks5.js';

const servers: net.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});
const listen = async (server: net.Server) => {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
};

/** A minimal RFC 1928 proxy: optional user/pass, CONNECT to IPv4 targets, then a byte pipe. */
async function startProxy(credentials?: { username: string; password: string }) {
  const requests: string[] = [];
  const port = await listen(
    net.createServer((client) => {
      client.once('data', (greeting: Buffer) => {
        client.write(Buffer.from([5, credentials ? 2 : 0]));
        const onConnect = (request: Buffer) => {
          const target = `${[...request.subarray(4, 8)].join('.')}:${request.readUInt16BE(8)}`;
          requests.push(target);
          const upstream = net.connect(request.readUInt16BE(8), [...request.subarray(4, 8)].join('.'), () => {
            client.write(Buffer.from([5, 0, 0, 1, 127, 0, 0, 1, 0, 0]));
            client.pipe(upstream).pipe(client);
          });
          upstream.on('error', () => client.end(Buffer.from([5, 5, 0, 1, 0, 0, 0, 0, 0, 0])));
        };
        if (!credentials) return client.once('data', onConnect);
        client.once('data', (auth: Buffer) => {
          const user = auth.subarray(2, 2 + (auth[1] ?? 0)).toString();
          const pass = auth.subarray(3 + (auth[1] ?? 0)).toString();
          const ok = user === credentials.username && pass === credentials.password;
          client.write(Buffer.from([1, ok ? 0 : 1]));
          if (ok) client.once('data', onConnect);
        });
        void greeting;
      });
    }),
  );
  return { port, requests };
}

describe('SOCKS5 socket factory', () => {
  it('tunnels to the target through the proxy, with username/password', async () => {
    const target = await listen(net.createServer((socket) => socket.end('220 mx.test ESMTP\r\n')));
    const proxy = await startProxy({ username: 'u', password: 'p' });
    const connect = socks5SocketFactory({
      host: '127.0.0.1',
      port: proxy.port,
      username: 'u',
      password: 'p',
    });
    const socket = await connect('127.0.0.1', target, AbortSignal.timeout(2000));
    const banner = await new Promise<string>((resolve) =>
      socket.once('data', (chunk) => resolve(chunk.toString())),
    );
    expect(banner).toBe('220 mx.test ESMTP\r\n');
    expect(proxy.requests).toEqual([`127.0.0.1:${target}`]);
    socket.destroy();
  });

  it('reports rejected credentials and refused targets as connection failures', async () => {
    const proxy = await startProxy({ username: 'u', password: 'p' });
    const wrong = socks5SocketFactory({
      host: '127.0.0.1',
      port: proxy.port,
      username: 'u',
      password: 'nope',
    });
    await expect(wrong('127.0.0.1', 9, AbortSignal.timeout(2000))).rejects.toThrow('authentication rejected');
    const open = await startProxy();
    const refused = await socks5SocketFactory({ host: '127.0.0.1', port: open.port })(
      '127.0.0.1',
      9,
      AbortSignal.timeout(2000),
    ).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SmtpConnectionError);
    expect((refused as Error).message).toContain('connection refused');
  });

  it('validates credentials length up front', () => {
    expect(() =>
      socks5SocketFactory({ host: '127.0.0.1', port: 1080, username: 'x'.repeat(256), password: '' }),
    ).toThrow('at most 255 bytes');
  });
});
