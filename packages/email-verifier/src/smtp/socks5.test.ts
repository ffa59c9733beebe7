import net from 'node:net';
import { type Socks5Proxy, type Socks5ProxyOptions, startSocks5Proxy } from '@svc/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { SmtpConnectionError } from './connection.js';
import { parseSocks5Url, socks5SocketFactory } from './socks5.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});
const proxy = async (options: Socks5ProxyOptions = {}): Promise<Socks5Proxy> => {
  const started = await startSocks5Proxy(options);
  cleanups.push(() => started.close());
  return started;
};
const banner = async () => {
  const server = net.createServer((socket) => socket.end('220 mx.test ESMTP\r\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return (server.address() as net.AddressInfo).port;
};
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => {
      expect(error).toBeInstanceOf(SmtpConnectionError);
      const { kind, message } = error as SmtpConnectionError;
      return { kind, message };
    },
  );

describe('SOCKS5 socket factory', () => {
  it('tunnels to the target through the proxy, with username/password', async () => {
    const target = await banner();
    const socks = await proxy({ auth: { username: 'u', password: 'p' } });
    const connect = socks5SocketFactory({
      host: '127.0.0.1',
      port: socks.port,
      username: 'u',
      password: 'p',
    });
    const socket = await connect('127.0.0.1', target, AbortSignal.timeout(2000));
    // The banner may have come with the CONNECT reply: it waits in the paused socket.
    expect(socket.isPaused()).toBe(true);
    const greeting = await new Promise<string>((resolve) => {
      socket.once('data', (chunk) => resolve(chunk.toString()));
      socket.resume();
    });
    expect(greeting).toBe('220 mx.test ESMTP\r\n');
    expect(socks.relayed().map((record) => [record.target, record.username])).toEqual([
      [`127.0.0.1:${target}`, 'u'],
    ]);
    socket.destroy();
  });

  it('blames the proxy for what the proxy did, and the target for what the target did', async () => {
    const socks = await proxy({ auth: { username: 'u', password: 'p' } });
    const at = (port: number, extra: object = {}) =>
      socks5SocketFactory({ host: '127.0.0.1', port, ...extra })('127.0.0.1', 9, AbortSignal.timeout(2000));
    // The proxy's own failures: wrong credentials, no acceptable method, error 1/2, refused, hanging.
    expect(await failure(at(socks.port, { username: 'u', password: 'nope' }))).toEqual({
      kind: 'proxy_failed',
      message: `SOCKS5 proxy 127.0.0.1:${socks.port}: authentication rejected`,
    });
    expect((await failure(at(socks.port))).kind).toBe('proxy_failed');
    const broken = await proxy({ failure: 'general_failure' });
    expect(await failure(at(broken.port))).toEqual({
      kind: 'proxy_failed',
      message: `SOCKS5 proxy 127.0.0.1:${broken.port}: general failure (reply 1) for 127.0.0.1:9`,
    });
    await broken.setFailure('not_allowed');
    expect((await failure(at(broken.port))).kind).toBe('proxy_failed');
    await broken.setFailure('refuse_connection');
    expect((await failure(at(broken.port))).kind).toBe('proxy_failed');
    const hanging = await proxy({ failure: 'hang' });
    const silent = socks5SocketFactory({ host: '127.0.0.1', port: hanging.port })(
      '127.0.0.1',
      9,
      AbortSignal.timeout(200),
    );
    expect(await failure(silent)).toEqual({
      kind: 'proxy_failed',
      message: `SOCKS5 proxy 127.0.0.1:${hanging.port}: no answer from the proxy (handshake)`,
    });
    // The target's: it refused (5) or is unreachable (4), as a direct connection would say.
    const open = await proxy();
    expect(await failure(at(open.port))).toEqual({
      kind: 'connect_failed',
      message: `SOCKS5 proxy 127.0.0.1:${open.port}: connection refused (reply 5) for 127.0.0.1:9`,
    });
    await open.setFailure('host_unreachable');
    expect((await failure(at(open.port))).kind).toBe('connect_failed');
  });

  it('validates credentials length up front', () => {
    expect(() =>
      socks5SocketFactory({ host: '127.0.0.1', port: 1080, username: 'x'.repeat(256), password: '' }),
    ).toThrow('at most 255 bytes');
  });
});

describe('parseSocks5Url', () => {
  it('reads host, port (1080 by default) and percent-encoded credentials', () => {
    expect(parseSocks5Url('socks5://probe:p%40ss%3Aword@127.0.0.1:9050')).toEqual({
      host: '127.0.0.1',
      port: 9050,
      username: 'probe',
      password: 'p@ss:word',
    });
    expect(parseSocks5Url('socks5h://[2001:db8::1]')).toEqual({ host: '2001:db8::1', port: 1080 });
    expect(parseSocks5Url('socks5://proxy.example.net:1')).toEqual({ host: 'proxy.example.net', port: 1 });
  });

  it('refuses other schemes and paths without repeating the URL', () => {
    expect(() => parseSocks5Url('socks4://u:secret@h:1', '--socks5')).toThrow(
      '--socks5 must use the socks5:// scheme, got socks4://',
    );
    expect(() => parseSocks5Url('socks5://u:secret@h:99999')).toThrow(
      'proxy URL must look like socks5://[user:password@]host:port',
    );
  });
});
