import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type Socks5Proxy, startSocks5Proxy } from './server.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function proxy(options: Parameters<typeof startSocks5Proxy>[0] = {}): Promise<Socks5Proxy> {
  const started = await startSocks5Proxy(options);
  cleanups.push(() => started.close());
  return started;
}

/** An echo server that greets first, like an MTA. */
async function target(): Promise<number> {
  const server = net.createServer((socket) => {
    socket.write('hello\n');
    socket.pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return (server.address() as net.AddressInfo).port;
}

/** Reads exactly `length` bytes (or what came before the socket closed); keeps the rest. */
const pending = new WeakMap<net.Socket, { data: Buffer; wake: () => void; closed: boolean }>();
function read(socket: net.Socket, length: number): Promise<Buffer> {
  let state = pending.get(socket);
  if (!state) {
    const created = { data: Buffer.alloc(0), wake: () => {}, closed: false };
    state = created;
    pending.set(socket, created);
    socket.on('data', (chunk: Buffer) => {
      created.data = Buffer.concat([created.data, chunk]);
      created.wake();
    });
    socket.once('close', () => {
      created.closed = true;
      created.wake();
    });
  }
  const own = state;
  return new Promise((resolve) => {
    own.wake = () => {
      if (own.data.length < length && !own.closed) return;
      const got = own.data.subarray(0, length);
      own.data = own.data.subarray(got.length);
      own.wake = () => {};
      resolve(got);
    };
    own.wake();
  });
}

/** A hand-rolled RFC 1928 client (independent of the code under test). */
async function socksConnect(
  port: number,
  request: Buffer,
  auth?: { username: string; password: string },
): Promise<{ socket: net.Socket; method: number; authStatus?: number; reply?: Buffer }> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.write(Buffer.from([5, 1, auth ? 2 : 0]));
  const [, method = -1] = await read(socket, 2);
  if (method === 0xff) return { socket, method };
  let authStatus: number | undefined;
  if (auth) {
    const user = Buffer.from(auth.username);
    const pass = Buffer.from(auth.password);
    socket.write(Buffer.concat([Buffer.from([1, user.length]), user, Buffer.from([pass.length]), pass]));
    authStatus = (await read(socket, 2))[1];
    if (authStatus !== 0) return { socket, method, authStatus };
  }
  socket.write(request);
  return { socket, method, authStatus, reply: await read(socket, 10) };
}

const ipv4Connect = (port: number, host = [127, 0, 0, 1]) =>
  Buffer.from([5, 1, 0, 1, ...host, port >> 8, port & 0xff]);

describe('startSocks5Proxy', () => {
  it('relays a CONNECT without authentication and records where to', async () => {
    const port = await target();
    const socks = await proxy();
    const { socket, method, reply } = await socksConnect(socks.port, ipv4Connect(port));
    expect(method).toBe(0);
    expect(reply?.[1]).toBe(0);
    expect((await read(socket, 6)).toString()).toBe('hello\n');
    socket.write('ping\n');
    expect((await read(socket, 5)).toString()).toBe('ping\n');
    expect(socks.relayed(`127.0.0.1:${port}`)).toHaveLength(1);
    expect(socks.connections[0]).toMatchObject({ outcome: 'relayed', replyCode: 0, username: null });
    expect(socks.currentRelays(`127.0.0.1:${port}`)).toBe(1);
    socket.destroy();
    await expect.poll(() => socks.currentRelays()).toBe(0);
    expect(socks.peakRelays(`127.0.0.1:${port}`)).toBe(1);
    expect(socks.connections[0]?.bytesUp).toBe(5);
  });

  it('requires username/password when configured (RFC 1929) and records the username only', async () => {
    const port = await target();
    const socks = await proxy({ auth: { username: 'alice', password: 's3cret' } });
    const ok = await socksConnect(socks.port, ipv4Connect(port), { username: 'alice', password: 's3cret' });
    expect([ok.method, ok.authStatus, ok.reply?.[1]]).toEqual([2, 0, 0]);
    ok.socket.destroy();
    const wrong = await socksConnect(socks.port, ipv4Connect(port), { username: 'alice', password: 'nope' });
    expect(wrong.authStatus).toBe(1);
    const none = await socksConnect(socks.port, ipv4Connect(port));
    expect(none.method).toBe(0xff);
    expect(socks.connections.map((c) => [c.outcome, c.username])).toEqual([
      ['relayed', 'alice'],
      ['auth_failed', 'alice'],
      ['no_acceptable_method', null],
    ]);
    expect(JSON.stringify(socks.connections)).not.toContain('s3cret');
  });

  it('relays to a domain name target (ATYP 3) resolved by the system', async () => {
    const port = await target();
    const socks = await proxy();
    const name = Buffer.from('localhost');
    const request = Buffer.concat([
      Buffer.from([5, 1, 0, 3, name.length]),
      name,
      Buffer.from([port >> 8, port & 0xff]),
    ]);
    const { socket, reply } = await socksConnect(socks.port, request);
    expect(reply?.[1]).toBe(0);
    expect(socks.connections[0]?.target).toBe(`localhost:${port}`);
    socket.destroy();
  });

  it.each([
    ['general_failure', 1],
    ['not_allowed', 2],
    ['host_unreachable', 4],
  ] as const)('answers CONNECT with an error when told to fail with %s', async (mode, code) => {
    const port = await target();
    const socks = await proxy({ failure: mode });
    const { reply } = await socksConnect(socks.port, ipv4Connect(port));
    expect(reply?.[1]).toBe(code);
    expect(socks.connections[0]).toMatchObject({
      outcome: 'error_reply',
      replyCode: code,
      target: `127.0.0.1:${port}`,
    });
    expect(socks.relayed()).toHaveLength(0);
  });

  it('answers connection refused (5) when the target is closed, and refuses non-loopback targets (2)', async () => {
    const socks = await proxy();
    const closed = await socksConnect(socks.port, ipv4Connect(9));
    expect(closed.reply?.[1]).toBe(5);
    const outside = await socksConnect(socks.port, ipv4Connect(25, [192, 0, 2, 1]));
    expect(outside.reply?.[1]).toBe(2);
    const bind = await socksConnect(socks.port, Buffer.from([5, 2, 0, 1, 127, 0, 0, 1, 0, 25]));
    expect(bind.reply?.[1]).toBe(7);
  });

  it('refuses TCP connections while refuse_connection is set, and listens again on the same port after', async () => {
    const port = await target();
    const socks = await proxy({ failure: 'refuse_connection' });
    const refused = await new Promise<string>((resolve) => {
      const socket = net.connect(socks.port, '127.0.0.1');
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? ''));
      socket.once('connect', () => resolve('connected'));
    });
    expect(refused).toBe('ECONNREFUSED');
    await socks.setFailure('none');
    const { reply, socket } = await socksConnect(socks.port, ipv4Connect(port));
    expect(reply?.[1]).toBe(0);
    socket.destroy();
    expect(socks.connections).toHaveLength(1);
  });

  it('hangs: accepts the connection and never answers the greeting', async () => {
    const socks = await proxy({ failure: 'hang' });
    const socket = net.connect(socks.port, '127.0.0.1');
    cleanups.push(async () => socket.destroy());
    socket.write(Buffer.from([5, 1, 0]));
    const answer = await Promise.race([
      read(socket, 2).then(() => 'answered'),
      new Promise((resolve) => setTimeout(() => resolve('silent'), 150)),
    ]);
    expect(answer).toBe('silent');
    expect(socks.connections[0]?.outcome).toBe('hung');
  });

  it('validates its options with clear messages', async () => {
    await expect(startSocks5Proxy({ host: '10.0.0.1' })).rejects.toThrow(
      'SOCKS5 proxy options.host must be a 127.x.y.z loopback address, got "10.0.0.1"',
    );
    await expect(startSocks5Proxy({ auth: { username: '', password: 'x' } })).rejects.toThrow(
      'options.auth.username must be a string of 1..255 bytes',
    );
    const socks = await proxy();
    await expect(socks.setFailure('explode' as never)).rejects.toThrow(
      'failure must be one of none, refuse_connection',
    );
  });
});
