import {
  createServer,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { RecordedHttpRequest, RecordedHttpResponse } from './types.js';

/** Called once a request's whole body has arrived. */
export type FakeRequestHandler = (request: RecordedHttpRequest, res: ServerResponse) => void;

/** A listening fake HTTP server with the plumbing both fakes share. */
export interface LoopbackServer {
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** Sends `response` after its delay, unless the server closes first. */
  send(res: ServerResponse, response: RecordedHttpResponse, onSent?: () => void): void;
  /** Runs `onClose` hooks, stops listening and destroys every connection; idempotent. */
  close(): Promise<void>;
  /** Registers work to cancel on close (e.g. rejecting waiters). */
  onClose(hook: () => void): void;
}

async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of req) chunks.push(chunk as Buffer);
  } catch {
    return undefined; // the client went away mid-body: nothing to answer
  }
  return Buffer.concat(chunks);
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port, exclusive: true }, () => {
      server.off('error', reject);
      // Accept errors (EMFILE under a benchmark) must not crash the test process.
      server.on('error', () => {});
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

/** Starts an HTTP server on `host:port` that hands each fully read request to `handler`. */
export async function startLoopbackServer(
  host: string,
  port: number,
  handler: FakeRequestHandler,
): Promise<LoopbackServer> {
  const timers = new Set<NodeJS.Timeout>();
  const hooks: (() => void)[] = [];
  let closing: Promise<void> | undefined;

  const server = createServer((req, res) => {
    void readBody(req).then((body) => {
      if (body === undefined || closing) return;
      const request: RecordedHttpRequest = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: req.headers,
        rawHeaders: req.rawHeaders,
        body,
        at: Date.now(),
      };
      handler(request, res);
    });
  });
  // Keep-alive sockets from fetch's pool would otherwise hold close() open.
  server.keepAliveTimeout = 1000;
  const actualPort = await listen(server, host, port);

  const write = (res: ServerResponse, response: RecordedHttpResponse, onSent?: () => void): void => {
    if (closing || res.destroyed) return;
    res.writeHead(response.status, response.headers as OutgoingHttpHeaders);
    res.end(response.body, onSent);
  };

  return {
    url: `http://${host}:${actualPort}`,
    host,
    port: actualPort,
    send(res, response, onSent) {
      if (response.delayMs <= 0) return write(res, response, onSent);
      const timer = setTimeout(() => {
        timers.delete(timer);
        write(res, response, onSent);
      }, response.delayMs);
      timers.add(timer);
    },
    onClose(hook) {
      hooks.push(hook);
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        for (const hook of hooks) hook();
        server.close(() => resolve());
        // Hanging and delayed requests would keep close() (and vitest) waiting forever.
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
