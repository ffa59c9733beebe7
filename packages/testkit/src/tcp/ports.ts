import net from 'node:net';
import { Worker } from 'node:worker_threads';

/** A TCP port whose connection attempts are never answered (see {@link startBlackholePort}). */
export interface BlackholePort {
  readonly host: string;
  readonly port: number;
  /** Releases the port (and the connections that fill its queue). Safe to call twice. */
  close(): Promise<void>;
}

// The listener lives in a worker thread that blocks on Atomics.wait right after listen(): nothing
// ever accepts, so once the kernel's accept queue (backlog 1: two connections) is full, Linux drops
// every further SYN and a client's connect() waits until its own timeout, as behind a firewall
// that drops packets. Node cannot listen without accepting in the main thread.
const LISTENER = `
const net = require('node:net');
const { parentPort, workerData } = require('node:worker_threads');
const server = net.createServer();
server.on('error', (error) => parentPort.postMessage({ error: error.message }));
server.listen({ host: workerData.host, port: 0, backlog: 1 }, () => {
  parentPort.postMessage({ port: server.address().port });
  Atomics.wait(new Int32Array(workerData.release), 0, 0);
  server.close();
});`;

/**
 * Starts a TCP port on loopback that never completes a connection: a "filtered" port, where a
 * client's connect times out instead of being refused (Linux; the accept queue is filled first).
 */
export async function startBlackholePort(options: { host?: string } = {}): Promise<BlackholePort> {
  const host = options.host ?? '127.0.0.1';
  const release = new SharedArrayBuffer(4);
  const worker = new Worker(LISTENER, { eval: true, workerData: { host, release } });
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('message', (message: { port?: number; error?: string }) =>
      message.port ? resolve(message.port) : reject(new Error(`blackhole port: ${message.error}`)),
    );
    worker.once('error', reject);
  });
  // Fill the accept queue (the kernel completes these handshakes itself; nobody accepts them).
  const fillers: net.Socket[] = [];
  for (let i = 0; i < 2; i++) {
    const socket = net.connect({ host, port });
    socket.on('error', () => {});
    fillers.push(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('error', reject);
    });
  }
  let closing: Promise<void> | undefined;
  return {
    host,
    port,
    close() {
      closing ??= (async () => {
        for (const socket of fillers) socket.destroy();
        const flag = new Int32Array(release);
        Atomics.store(flag, 0, 1);
        Atomics.notify(flag, 0);
        await worker.terminate();
      })();
      return closing;
    },
  };
}

/**
 * A port on `host` that nothing listens on, so a connect is refused at once (the kernel answers
 * RST). Found by listening on an ephemeral port and closing it; another process could take it in
 * between, which on loopback in a test run is unlikely enough.
 */
export async function closedPort(host = '127.0.0.1'): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port: 0 }, () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A port that accepts connections and then says nothing (an SMTP client waits for a greeting that
 * never comes, as with a tarpit or a provider's interception). Connections are held until close().
 */
export async function startSilentPort(options: { host?: string } = {}): Promise<BlackholePort> {
  const host = options.host ?? '127.0.0.1';
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port: 0 }, () => resolve());
  });
  let closing: Promise<void> | undefined;
  return {
    host,
    port: (server.address() as net.AddressInfo).port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      });
      return closing;
    },
  };
}
