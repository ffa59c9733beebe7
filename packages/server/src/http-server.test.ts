import type { IncomingMessage, Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  delayAnswerUnread,
  delayedUnreadAnswers,
  HOLD_UNREAD_MAX,
  HOLD_UNREAD_MS,
  heldUnreadConnections,
  httpServerFactory,
  lingerOnClose,
  onClientError,
  type UnreadBodyClose,
} from './http-server.js';
import { createTestServer, type TestServer } from './testing/test-server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.app.close();
  server = undefined;
});

async function listen(limits: Record<string, number> = {}) {
  server = await createTestServer({ options: { limits } });
  await server.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = server.app.server.address() as { port: number };
  return { server, port };
}

interface Exchange {
  /** Everything the server sent, as latin1 text. */
  text: string;
  /** How the connection ended: the server's FIN (`end`), or the error it ended with (a reset). */
  ended: string;
}

/** Opens a socket, lets `talk` write to it, and collects the answer until the connection is closed. */
function exchange(port: number, talk: (socket: Socket) => void, endAfterMs?: number): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => talk(socket));
    let text = '';
    let ended = 'open';
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
    });
    socket.on('end', () => {
      if (ended === 'open') ended = 'end';
      socket.end();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      ended = error.code ?? error.message;
    });
    socket.on('close', () => resolve({ text, ended }));
    if (endAfterMs !== undefined) setTimeout(() => socket.end(), endAfterMs);
  });
}

/** The first response of an exchange: status, headers (lower-case names) and body. */
function firstResponse(text: string) {
  const split = text.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = text.slice(0, split).split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [
      line.slice(0, line.indexOf(':')).toLowerCase(),
      line.slice(line.indexOf(':') + 1).trim(),
    ]),
  );
  const length = Number(headers['content-length'] ?? 0);
  return {
    status: Number(statusLine.split(' ')[1]),
    headers,
    body: text.slice(split + 4, split + 4 + length),
    rest: text.slice(split + 4),
  };
}

function expectSpecBody(body: string, message: string | RegExp, headers: Record<string, string>) {
  const parsed = JSON.parse(body) as { error: { code: string; message: string; request_id: string } };
  expect(Object.keys(parsed)).toEqual(['error']);
  expect(parsed.error.code).toBe('invalid_request');
  if (typeof message === 'string') expect(parsed.error.message).toBe(message);
  else expect(parsed.error.message).toMatch(message);
  expect(parsed.error.request_id).toBe(headers['x-request-id']);
}

/** The answer to a body over the free plan's verify limit: the spec's 400, then the server's FIN (no reset). */
function expectTooLargeThenFin({ text, ended }: Exchange): void {
  const response = firstResponse(text);
  expect(response.status).toBe(400);
  expectSpecBody(
    response.body,
    "the body is larger than this endpoint's limit of 16384 bytes",
    response.headers,
  );
  expect(ended).toBe('end');
}

describe('protocol edges on raw sockets', () => {
  it('an HTTP/1.1 request without Host: 400 in the spec body (not Node’s bare 400)', async () => {
    const { port } = await listen();
    const { text } = await exchange(port, (s) => s.write('GET /v2/health HTTP/1.1\r\n\r\n'), 300);
    const response = firstResponse(text);
    expect(response.status).toBe(400);
    expectSpecBody(response.body, 'an HTTP/1.1 request needs a Host header', response.headers);
    expect(response.headers['x-ratelimit-limit']).toBe('100');
  });

  it('Expect other than 100-continue: 400 in the spec body (not a bare 417); 100-continue still works', async () => {
    const { port } = await listen();
    const { text } = await exchange(
      port,
      (s) => s.write('GET /v2/health HTTP/1.1\r\nHost: x\r\nExpect: something-else\r\n\r\n'),
      300,
    );
    const response = firstResponse(text);
    expect(response.status).toBe(400);
    expectSpecBody(response.body, /^Expect: "something-else" cannot be met/, response.headers);

    const continued = await exchange(
      port,
      (s) =>
        s.write(
          'POST /v2/verify/email HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
        ),
      300,
    );
    expect(continued.text).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 401 /);
  });

  it('CONNECT: answered 400 in the spec body and closed, not dropped', async () => {
    const { port } = await listen();
    const { text, ended } = await exchange(port, (s) =>
      s.write('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'),
    );
    const response = firstResponse(text);
    expect(response.status).toBe(400);
    expectSpecBody(
      response.body,
      'CONNECT is not served: this is an HTTP API, not a proxy',
      response.headers,
    );
    expect(response.headers.connection).toBe('close');
    expect(ended).toBe('end');
  });

  it('HEAD with a non-ASCII path: 400 with no body; GET gets the body', async () => {
    const { port } = await listen();
    const request = (method: string) =>
      Buffer.concat([
        Buffer.from(`${method} /v2/h`),
        Buffer.from([0xe9]),
        Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n'),
      ]);
    const head = firstResponse((await exchange(port, (s) => s.write(request('HEAD')))).text);
    expect(head.status).toBe(400);
    expect(Number(head.headers['content-length'])).toBeGreaterThan(0);
    expect(head.rest).toBe('');
    const get = firstResponse((await exchange(port, (s) => s.write(request('GET')))).text);
    expect(get.status).toBe(400);
    expectSpecBody(get.body, 'the request is not valid HTTP/1.1', get.headers);
  });
});

describe('slow and oversized requests', () => {
  it('headers trickled slower than limits.headersTimeoutMs: 400 and the connection closed', async () => {
    const { port } = await listen({ headersTimeoutMs: 200 });
    let timer: NodeJS.Timeout | undefined;
    const { text, ended } = await exchange(port, (s) => {
      s.write('GET /v2/health HTTP/1.1\r\nHost: x\r\n');
      timer = setInterval(() => s.writable && s.write('X-Slow: 1\r\n'), 40);
    });
    clearInterval(timer);
    const response = firstResponse(text);
    expect(response.status).toBe(400);
    expectSpecBody(response.body, 'the request was not received in time', response.headers);
    expect(ended).toBe('end');
  });

  it('a body slower than the deadline: 400 "not received in time" (not 503 upstream_timeout), then closed', async () => {
    const { server: s, port } = await listen({ requestTimeoutMs: 300 });
    const { testKey } = await s.account('free');
    const { text, ended } = await exchange(port, (socket) =>
      socket.write(
        `POST /v2/verify/email HTTP/1.1\r\nHost: x\r\nX-API-Key: ${testKey.secret}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"email":`,
      ),
    );
    const response = firstResponse(text);
    expect(response.status).toBe(400);
    expectSpecBody(response.body, 'the request body was not received in time', response.headers);
    expect(response.headers.connection).toBe('close');
    expect(ended).toBe('end');
  });

  it('an oversized body: the 400 arrives and the connection ends with FIN, not a reset', async () => {
    const { server: s, port } = await listen();
    const { testKey } = await s.account('free');
    // 32 MiB in chunks, written at once: the server answers after 16 KiB and must not close on the rest.
    const chunk = Buffer.alloc(65_536, 0x20);
    const parts: Buffer[] = [];
    for (let i = 0; i < 512; i++) parts.push(Buffer.from('10000\r\n'), chunk, Buffer.from('\r\n'));
    parts.push(Buffer.from('0\r\n\r\n'));
    const answer = await new Promise<Exchange>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(
          `POST /v2/verify/email HTTP/1.1\r\nHost: x\r\nX-API-Key: ${testKey.secret}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
        );
        socket.write(Buffer.concat(parts), () => socket.end());
      });
      let text = '';
      let ended = 'open';
      socket.on('data', (data) => {
        text += data.toString('latin1');
      });
      socket.on('end', () => {
        if (ended === 'open') ended = 'end';
      });
      // Before: EPIPE (or a reset) while the client was still sending.
      socket.on('error', (error: NodeJS.ErrnoException) => {
        ended = error.code ?? error.message;
      });
      socket.on('close', () => resolve({ text, ended }));
    });
    expectTooLargeThenFin(answer);
  });

  it('a body refused by its Content-Length, from a client that reads only after writing it all: drained, the 400 read, FIN', async () => {
    const { server: s, port } = await listen();
    const { testKey } = await s.account('free');
    // 4 MB declared and sent, 16 KiB allowed. Before, the server read one chunk, never read on,
    // and destroyed the socket after LINGER_IDLE_MS: the client, stuck writing, got a reset and no answer.
    const body = Buffer.alloc(4_000_000, 0x20);
    const answer = await exchange(port, (socket) => {
      socket.pause();
      socket.write(
        `POST /v2/verify/email HTTP/1.1\r\nHost: x\r\nX-API-Key: ${testKey.secret}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
      );
      socket.write(body, () => {
        socket.end();
        socket.resume();
      });
    });
    expectTooLargeThenFin(answer);
  });
});

/** Waits until `condition` holds, turn by turn of the event loop (no timers: they may be fake). */
async function until(condition: () => boolean): Promise<void> {
  for (let turns = 0; !condition(); turns++) {
    if (turns > 100_000) throw new Error('the condition did not hold');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** A full garbage collection (V8's `gc`, exposed at run time), twice: weak references are cleared by then. */
async function collectGarbage(): Promise<void> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  for (let i = 0; i < 2; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    gc();
  }
}

/** 4 MB declared and sent: over every endpoint's limit, so always refused unread. */
const OVERSIZED = Buffer.alloc(4_000_000, 0x20);

/**
 * POSTs OVERSIZED to /v2/verify/email with `key`, the client reading as it writes (or, with
 * `readAfterWriting`, only once it has written it all), and says what came back and how many
 * bytes the server read from that connection (its socket's `bytesRead` once closed).
 */
async function postOversized(
  port: number,
  key: string,
  options: { readAfterWriting?: boolean } = {},
): Promise<Exchange & { serverRead: number }> {
  const app = (server as TestServer).app;
  const serverSide = new Promise<Socket>((resolve) => app.server.once('connection', resolve));
  const answer = exchange(port, (socket) => {
    if (options.readAfterWriting) socket.pause();
    socket.write(
      `POST /v2/verify/email HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: ${OVERSIZED.length}\r\n\r\n`,
    );
    socket.write(OVERSIZED, (error) => {
      if (error) return;
      socket.end();
      socket.resume();
    });
  });
  const socket = await serverSide;
  if (!socket.destroyed) await new Promise((resolve) => socket.once('close', resolve));
  return { ...(await answer), serverRead: socket.bytesRead };
}

describe('refused bodies: drained up to limits.drainedBodiesPerMinute per account and address, then not read', () => {
  it('past the budget the rest of a refused body is not read, the 400 still reaches a client reading as it writes, and the budget refills', async () => {
    const { server: s, port } = await listen({ drainedBodiesPerMinute: 2 });
    const { testKey } = await s.account('free');
    for (let i = 0; i < 2; i++) {
      const drained = await postOversized(port, testKey.secret);
      expectTooLargeThenFin(drained);
      expect(drained.serverRead).toBeGreaterThan(OVERSIZED.length);
    }
    const held = await postOversized(port, testKey.secret);
    expect(firstResponse(held.text).status).toBe(400);
    expect(firstResponse(held.text).headers.connection).toBe('close');
    // Before: every refused body was read to its end (4 MB each).
    expect(held.serverRead).toBeLessThan(OVERSIZED.length / 4);
    // 2 a minute: one more after 30 s.
    s.clock.now += 30_000;
    const refilled = await postOversized(port, testKey.secret, { readAfterWriting: true });
    expectTooLargeThenFin(refilled);
    expect(refilled.serverRead).toBeGreaterThan(OVERSIZED.length);
  });

  it('a connection held unread keeps neither the reply nor the request’s deadline alive (only the socket and what Node keeps with it)', async () => {
    const { server: s, port } = await listen({ drainedBodiesPerMinute: 1 });
    const { testKey } = await s.account('free');
    await postOversized(port, testKey.secret);
    // A weak reference to the next request's reply (Node's ServerResponse): it may be collected
    // once answered, unless something still reaches it.
    let reply: WeakRef<object> | undefined;
    s.app.server.once('request', (_request, response) => {
      reply = new WeakRef(response);
    });
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    const answered = new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString('latin1');
        if (text.includes('\r\n\r\n')) resolve(text);
      });
    });
    socket.write(
      `POST /v2/verify/email HTTP/1.1\r\nHost: x\r\nX-API-Key: ${testKey.secret}\r\nContent-Type: application/json\r\nContent-Length: ${OVERSIZED.length}\r\n\r\n`,
    );
    socket.write(OVERSIZED, () => {});
    try {
      expect(firstResponse(await answered).status).toBe(400);
      await collectGarbage();
      // Still held (HOLD_UNREAD_MS has not passed), and the reply is gone. Before: the deadline's
      // listener for the body's end, on the request the socket's parser still holds, kept the
      // deadline, Fastify's reply and Node's response alive until the connection closed.
      expect(heldUnreadConnections()).toBeGreaterThan(0);
      expect(reply?.deref()).toBeUndefined();
    } finally {
      socket.destroy();
    }
  });

  it('past the budget the answer waits HOLD_UNREAD_MS with nothing more read, so a client sending refused bodies back to back is slowed', async () => {
    const { server: s, port } = await listen({ drainedBodiesPerMinute: 1 });
    const { testKey } = await s.account('free');
    await postOversized(port, testKey.secret);
    // The wait's and the hold's timers only.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    try {
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString('latin1');
      });
      socket.write(
        `POST /v2/verify/email HTTP/1.1\r\nHost: x\r\nX-API-Key: ${testKey.secret}\r\nContent-Type: application/json\r\nContent-Length: ${OVERSIZED.length}\r\n\r\n`,
      );
      socket.write(OVERSIZED, () => {});
      // Not vi.waitFor: with fake timers it advances them as it polls.
      await until(() => delayedUnreadAnswers() === 1);
      // Before: the 400 at once. Now nothing until HOLD_UNREAD_MS has passed.
      vi.advanceTimersByTime(HOLD_UNREAD_MS - 1);
      await new Promise((resolve) => setImmediate(resolve));
      expect(text).toBe('');
      vi.advanceTimersByTime(1);
      await until(() => text.includes('\r\n\r\n'));
      expect(firstResponse(text).status).toBe(400);
      expect(firstResponse(text).headers.connection).toBe('close');
      expect(delayedUnreadAnswers()).toBe(0);
      // Then held as before, and closed after HOLD_UNREAD_MS.
      expect(heldUnreadConnections()).toBe(1);
      vi.advanceTimersByTime(HOLD_UNREAD_MS);
      await until(() => heldUnreadConnections() === 0);
    } finally {
      vi.useRealTimers();
      socket.destroy();
    }
  });

  it('one account past its budget does not change how another account at the same address is answered', async () => {
    const { server: s, port } = await listen({ drainedBodiesPerMinute: 1 });
    const noisy = await s.account('free', 'noisy');
    const neighbour = await s.account('free', 'neighbour');
    await postOversized(port, noisy.testKey.secret);
    expect((await postOversized(port, noisy.testKey.secret)).serverRead).toBeLessThan(OVERSIZED.length / 4);
    const answer = await postOversized(port, neighbour.testKey.secret, { readAfterWriting: true });
    expectTooLargeThenFin(answer);
  });

  it('a 401 to a short body, and a 429 to a GET, keep the connection (the next request on it is answered)', async () => {
    const { port } = await listen({ unauthenticatedBurst: 1, unauthenticatedPerSecond: 1 });
    const body = '{"email":"someone@example.com"}';
    const { text } = await exchange(
      port,
      (socket) =>
        socket.write(
          `POST /v2/verify/email HTTP/1.1\r\nHost: x\r\nX-API-Key: sk_test_unknown\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}` +
            'GET /v2/health HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(3),
        ),
      500,
    );
    const statuses = [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => Number(match[1]));
    // A GET refused in a synchronous hook is answered before Node marks it complete: that 429 once
    // closed the connection, and the request after it went unanswered.
    expect(statuses).toEqual([401, 200, 429, 429]);
    expect(text).not.toMatch(/^connection: close/im);
  });

  it('an error answered before the body is read (401, unknown key) closes the connection; requests without an account share their address’s budget', async () => {
    const { port } = await listen({ drainedBodiesPerMinute: 1 });
    const first = await postOversized(port, 'sk_test_unknown', { readAfterWriting: true });
    const response = firstResponse(first.text);
    expect(response.status).toBe(401);
    expect(response.headers.connection).toBe('close');
    expect(first.ended).toBe('end');
    expect(first.serverRead).toBeGreaterThan(OVERSIZED.length);
    const second = await postOversized(port, 'sk_test_other_unknown');
    expect(firstResponse(second.text).status).toBe(401);
    expect(second.serverRead).toBeLessThan(OVERSIZED.length / 4);
  });
});

describe('connections held with their body unread', () => {
  it(`at most HOLD_UNREAD_MAX (${HOLD_UNREAD_MAX}) answers wait at once; past that the answer goes at once`, async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const paused: string[] = [];
      const request = (id: number) =>
        ({
          pause: () => paused.push(`request ${id}`),
          socket: { pause: () => paused.push(`socket ${id}`) },
        }) as unknown as IncomingMessage;
      const settled: number[] = [];
      const waits = Array.from({ length: HOLD_UNREAD_MAX + 2 }, (_, id) =>
        delayAnswerUnread(request(id)).then(() => settled.push(id)),
      );
      await new Promise((resolve) => setImmediate(resolve));
      // The two past the bound go at once, unpaused; the others wait, paused.
      expect(settled).toEqual([HOLD_UNREAD_MAX, HOLD_UNREAD_MAX + 1]);
      expect(delayedUnreadAnswers()).toBe(HOLD_UNREAD_MAX);
      expect(paused).toContain(`socket ${HOLD_UNREAD_MAX - 1}`);
      expect(paused).not.toContain(`socket ${HOLD_UNREAD_MAX}`);
      vi.advanceTimersByTime(HOLD_UNREAD_MS);
      await Promise.all(waits);
      expect(settled).toHaveLength(HOLD_UNREAD_MAX + 2);
      expect(delayedUnreadAnswers()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it(`at most HOLD_UNREAD_MAX (${HOLD_UNREAD_MAX}) are kept at once; past that each is closed as soon as it is answered`, async () => {
    const plain: Server = httpServerFactory({ headersTimeoutMs: 10_000, requestTimeoutMs: 10_000 })(
      (request, response) => {
        lingerOnClose(request, () => 'hold');
        response.writeHead(400, { connection: 'close', 'content-length': '0' }).end();
      },
    );
    const serverSockets: Socket[] = [];
    /** Per server-side socket, its `close` event (emitted once its handle is closed). */
    const closedEvents: Promise<void>[] = [];
    plain.on('connection', (socket: Socket) => {
      serverSockets.push(socket);
      closedEvents.push(new Promise((resolve) => socket.once('close', () => resolve())));
    });
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    const clients: Socket[] = [];
    // The hold's own timer only: a slow machine cannot end the first holds before the last is answered.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const { port } = plain.address() as { port: number };
      const total = HOLD_UNREAD_MAX + 4;
      for (let i = 0; i < total; i++) {
        await new Promise<void>((resolve) => {
          const socket = connect(port, '127.0.0.1', () =>
            socket.write('POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n{"a":'),
          );
          socket.on('error', () => {});
          socket.once('data', () => resolve());
          clients.push(socket);
        });
      }
      // The ones past the bound are destroyed without waiting for HOLD_UNREAD_MS; the first are kept.
      await Promise.all(closedEvents.slice(HOLD_UNREAD_MAX));
      expect(serverSockets).toHaveLength(total);
      expect(serverSockets.slice(0, HOLD_UNREAD_MAX).every((socket) => !socket.closed)).toBe(true);
      expect(heldUnreadConnections()).toBe(HOLD_UNREAD_MAX);
      // After HOLD_UNREAD_MS every held connection is destroyed.
      vi.advanceTimersByTime(HOLD_UNREAD_MS);
      await Promise.all(closedEvents);
      expect(heldUnreadConnections()).toBe(0);
    } finally {
      vi.useRealTimers();
      for (const socket of clients) socket.destroy();
      plain.closeAllConnections();
      await new Promise((resolve) => plain.close(resolve));
    }
  });
});

describe('lingerOnClose when the choice fails', () => {
  it.each([
    [
      'throws',
      () => {
        throw new Error('limiter broken');
      },
    ],
    ['rejects (a shared limiter down)', () => Promise.reject(new Error('limiter down'))],
  ])(
    'a choice that %s drains: the client writing before it reads gets the answer and FIN, the body read whole',
    async (_name, choose) => {
      const body = Buffer.alloc(2_000_000, 0x20);
      const plain: Server = httpServerFactory({ headersTimeoutMs: 10_000, requestTimeoutMs: 10_000 })(
        (request, response) => {
          lingerOnClose(request, choose as () => Promise<UnreadBodyClose>);
          response.writeHead(400, { connection: 'close', 'content-length': '2' }).end('no');
        },
      );
      let serverSocket: Socket | undefined;
      let serverClosed: Promise<unknown> = Promise.resolve();
      plain.on('connection', (socket: Socket) => {
        serverSocket = socket;
        serverClosed = new Promise((resolve) => socket.once('close', resolve));
      });
      await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
      try {
        const { port } = plain.address() as { port: number };
        const { text, ended } = await exchange(port, (socket) => {
          socket.pause();
          socket.write(`POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n`);
          socket.write(body, () => {
            socket.end();
            socket.resume();
          });
        });
        expect(firstResponse(text).status).toBe(400);
        expect(ended).toBe('end');
        await serverClosed;
        expect(serverSocket?.bytesRead).toBeGreaterThan(body.length);
      } finally {
        plain.closeAllConnections();
        await new Promise((resolve) => plain.close(resolve));
      }
    },
  );
});

describe('the client-error handler and an answer in flight', () => {
  it('a backstop timeout while a response is being written: the socket is closed, no 400 written into the answer', async () => {
    // Node's own request timeout (headers 100 ms + deadline 100 ms + 1 s) fires while the body
    // is still arriving and the answer has begun: a 400 written then would land inside the 200.
    const plain: Server = httpServerFactory({ headersTimeoutMs: 100, requestTimeoutMs: 100 })(
      (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.write('partial answer');
      },
    );
    plain.on('clientError', onClientError);
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = plain.address() as { port: number };
      const { text, ended } = await exchange(port, (s) =>
        s.write('POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"email":'),
      );
      expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(text).toContain('partial answer');
      expect(text).not.toContain('400 Bad Request');
      expect(ended).not.toBe('open');
    } finally {
      plain.closeAllConnections();
      await new Promise((resolve) => plain.close(resolve));
    }
  });

  it('a timeout on a connection whose earlier answer has finished: the 400 in the spec body', async () => {
    const plain: Server = httpServerFactory({ headersTimeoutMs: 100, requestTimeoutMs: 100 })(
      (request, response) => {
        if (request.url === '/first') response.end('first');
      },
    );
    plain.on('clientError', onClientError);
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = plain.address() as { port: number };
      const { text } = await exchange(port, (s) => {
        s.write('GET /first HTTP/1.1\r\nHost: x\r\n\r\n');
        // The second request's headers never end: Node's headers timeout answers it, no response has begun.
        s.once('data', () => s.write('GET /second HTTP/1.1\r\nHost: x\r\n'));
      });
      const second = text.slice(text.indexOf('first') + 'first'.length);
      const response = firstResponse(second);
      expect(response.status).toBe(400);
      expectSpecBody(response.body, 'the request was not received in time', response.headers);
    } finally {
      plain.closeAllConnections();
      await new Promise((resolve) => plain.close(resolve));
    }
  });
});
