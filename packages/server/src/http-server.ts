import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import { ServiceError } from '@svc/core';
import { generateRequestId } from './plugins/request-id.js';

/** The timeouts of the listening socket (`limits` of the server options). */
export interface HttpServerLimits {
  /** A request's headers must arrive within this; slower (a slowloris) gets 400 and the close. */
  headersTimeoutMs: number;
  /** The deadline of a request (its body must arrive within it, see the deadline plugin). */
  requestTimeoutMs: number;
}

/** How long Fastify keeps an idle keep-alive connection (its own default, kept). */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;

/**
 * Node's own timeouts, set deliberately (Fastify leaves `requestTimeout` at 0, no limit, and
 * Node checks them every 30 s): headers within `headersTimeoutMs`; the whole request within the
 * headers' time plus the request's deadline and a second, a backstop only, since the deadline
 * plugin answers a body that is late (400) before it. Checked every quarter of the headers'
 * timeout, at most every second.
 */
export function nodeServerTimeouts(limits: HttpServerLimits) {
  const headersTimeout = limits.headersTimeoutMs;
  return {
    headersTimeout,
    requestTimeout: headersTimeout + limits.requestTimeoutMs + 1000,
    connectionsCheckingInterval: Math.max(25, Math.min(1000, Math.floor(headersTimeout / 4))),
  };
}

type RequestHandler = (request: IncomingMessage, response: ServerResponse) => void;

/** Per socket, how many of its responses have begun and not yet closed (finished or aborted). */
const openResponses = new WeakMap<Duplex, number>();

/** Counts a response on its socket until the response closes (`close` follows `finish` and an abort alike). */
function trackResponse(request: IncomingMessage, response: ServerResponse): void {
  const socket = request.socket;
  openResponses.set(socket, (openResponses.get(socket) ?? 0) + 1);
  response.once('close', () => {
    const left = (openResponses.get(socket) ?? 1) - 1;
    if (left > 0) openResponses.set(socket, left);
    else openResponses.delete(socket);
  });
}

/**
 * Whether a response of this socket has begun and not closed: its status line may be on the wire
 * already, so bytes written to the socket beside it would corrupt what the client reads. Counted
 * by the servers of httpServerFactory (public events only, not Node's private `_httpMessage`).
 */
export function answerInFlight(socket: Duplex): boolean {
  return openResponses.has(socket);
}

/**
 * Fastify's `serverFactory`: Node's HTTP (or HTTPS) server with the timeouts above, and with
 * `requireHostHeader: false` so that an HTTP/1.1 request without `Host` reaches the protocol
 * plugin, which answers it in the spec's body (Node's own answer is a bare 400); so does a
 * request with an `Expect` other than `100-continue` (Node's own answer is a bare 417).
 */
export function httpServerFactory(limits: HttpServerLimits, tls?: { cert: Buffer; key: Buffer }) {
  return (handler: RequestHandler): Server => {
    const options = { ...nodeServerTimeouts(limits), requireHostHeader: false };
    const server = tls
      ? createHttpsServer({ ...options, ...tls }, handler)
      : createHttpServer(options, handler);
    server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
    // Any Expect but 100-continue reaches the routes too, where the protocol plugin answers it (not Node's bare 417).
    server.on('checkExpectation', handler);
    // Every response the handler gets is counted first (answerInFlight).
    server.prependListener('request', trackResponse);
    server.prependListener('checkExpectation', trackResponse);
    return server;
  };
}

/**
 * Writes a 400 `invalid_request` in the spec's body straight to a socket that has no request
 * object (Node refused the bytes, or a CONNECT), then closes it. The answer to a HEAD has no body.
 */
export function writeSocketError(socket: Duplex, message: string, options: { head?: boolean } = {}): void {
  const requestId = generateRequestId();
  const body = JSON.stringify(new ServiceError('invalid_request', message).toBody(requestId));
  socket.end(
    `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${options.head ? '' : body}`,
  );
}

/** A request Node cannot take as HTTP never reaches Fastify (Fastify's `clientErrorHandler`). */
export function onClientError(error: Error, socket: Duplex): void {
  const code = (error as NodeJS.ErrnoException).code;
  // A reset, or an answer already on its way (a backstop timeout during one): nothing to add.
  if (code === 'ECONNRESET' || !socket.writable || answerInFlight(socket)) {
    socket.destroy();
    return;
  }
  const message =
    code === 'HPE_HEADER_OVERFLOW'
      ? 'the request headers are too large'
      : code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 'the request was not received in time'
        : 'the request is not valid HTTP/1.1';
  // The parser's input, when it had some: the answer to a HEAD carries no body.
  const packet = (error as { rawPacket?: Buffer }).rawPacket;
  writeSocketError(socket, message, { head: packet?.subarray(0, 5).toString('latin1') === 'HEAD ' });
}

/** CONNECT (a proxy's method) is answered, not dropped: this server tunnels nothing. */
export function onConnect(_request: IncomingMessage, socket: Duplex): void {
  writeSocketError(socket, 'CONNECT is not served: this is an HTTP API, not a proxy');
}

/** How long a refused body is read and dropped after the answer: idle time, and in all (nginx's lingering_timeout and lingering_time, shorter). */
export const LINGER_IDLE_MS = 2000;
export const LINGER_TOTAL_MS = 10_000;
/** How long a connection closed without reading the rest of its body is kept before it is destroyed. */
export const HOLD_UNREAD_MS = 1000;
/** At most this many such connections are kept at once; beyond, the next is destroyed at once. */
export const HOLD_UNREAD_MAX = 256;
const LINGERING = Symbol('svc.lingering');

/**
 * What happens to the rest of a refused body once the answer is written: `drain` reads and drops
 * it, so that a client that writes its whole body before reading gets the answer, not a reset;
 * `hold` reads no more of it, keeps the connection HOLD_UNREAD_MS for the client to read the
 * answer, and then destroys it (a client still writing gets a reset).
 */
export type UnreadBodyClose = 'drain' | 'hold';

/** Connections kept with their body unread (`hold`), bounded by HOLD_UNREAD_MAX. */
const held = new Set<Duplex>();

/** How many connections are kept now with their body unread (read by the tests). */
export function heldUnreadConnections(): number {
  return held.size;
}

/** Answers to refused bodies waiting now (`delayAnswerUnread`), bounded by HOLD_UNREAD_MAX. */
let delayedAnswers = 0;

/** How many answers to refused bodies are waiting now (read by the tests). */
export function delayedUnreadAnswers(): number {
  return delayedAnswers;
}

/**
 * Before the answer to a body refused unread past its budget (`hold`): stops reading (the request
 * and its socket paused) and waits HOLD_UNREAD_MS. A client that sends such bodies one after
 * another, each once the last was answered, gets one answered a HOLD_UNREAD_MS per connection
 * instead of as fast as it can send them. At most HOLD_UNREAD_MAX answers wait at once; past
 * that the answer goes at once.
 */
export async function delayAnswerUnread(request: IncomingMessage): Promise<void> {
  if (delayedAnswers >= HOLD_UNREAD_MAX) return;
  delayedAnswers++;
  request.pause();
  request.socket.pause();
  try {
    await new Promise((resolve) => setTimeout(resolve, HOLD_UNREAD_MS));
  } finally {
    delayedAnswers--;
  }
}

/** `drain`: reads and drops what the client still sends until it closes, is idle, or the total time is up. */
function drain(request: IncomingMessage, socket: Duplex): void {
  const stop = () => {
    clearTimeout(idle);
    clearTimeout(total);
    socket.destroy();
  };
  const idle = setTimeout(stop, LINGER_IDLE_MS).unref();
  const total = setTimeout(stop, LINGER_TOTAL_MS).unref();
  socket.once('end', stop);
  socket.once('error', stop);
  request.on('data', () => idle.refresh());
  request.resume();
}

/**
 * `hold`: stops reading (the request and its socket paused, public stream methods; again after
 * the turn, since Node schedules a resume of an unconsumed request when its answer finishes),
 * keeps the connection HOLD_UNREAD_MS, then destroys it.
 */
function hold(request: IncomingMessage, socket: Duplex): void {
  const stopReading = () => {
    request.unpipe();
    request.pause();
    socket.pause();
  };
  stopReading();
  setImmediate(stopReading);
  if (held.size >= HOLD_UNREAD_MAX) {
    socket.destroy();
    return;
  }
  held.add(socket);
  const timer = setTimeout(() => socket.destroy(), HOLD_UNREAD_MS).unref();
  socket.once('close', () => {
    clearTimeout(timer);
    held.delete(socket);
  });
  socket.once('error', () => socket.destroy());
}

/**
 * Closes gently a connection whose request body was refused before it was read (too large, too
 * many values, a type no route reads, too late, or any error answered before the body). Node
 * closes a `Connection: close` socket with `destroySoon()` once the answer is written; closing a
 * socket with unread input makes the kernel send a reset, which can discard the answer before the
 * client reads it. Instead: the answer, then FIN, then what the client still sends is drained or
 * held as `choose` says (`UnreadBodyClose`; drained when it is absent or fails). A drain reads and
 * drops until the client closes its side, is idle LINGER_IDLE_MS, or LINGER_TOTAL_MS have passed;
 * then the socket is destroyed. The bytes are read through the request (its `data`), not the
 * socket: a `data` listener on a socket that Node's HTTP parser consumes stops the socket from
 * being read at all, so a body refused by its `Content-Length` was left unread and the socket
 * destroyed (a reset) after LINGER_IDLE_MS.
 */
export function lingerOnClose(
  request: IncomingMessage,
  choose?: () => UnreadBodyClose | Promise<UnreadBodyClose>,
): void {
  const socket: Duplex = request.socket;
  const own = socket as Duplex & { [LINGERING]?: true; destroySoon?: () => void };
  if (own[LINGERING] || typeof own.destroySoon !== 'function') return;
  own[LINGERING] = true;
  own.destroySoon = () => {
    // Called once: the socket stops holding this closure (and through `choose` the request and
    // its reply), which would otherwise live as long as a held connection does.
    delete own.destroySoon;
    if (socket.writable) socket.end();
    const close = (how: UnreadBodyClose) => (how === 'hold' ? hold : drain)(request, socket);
    let chosen: UnreadBodyClose | Promise<UnreadBodyClose>;
    try {
      chosen = choose?.() ?? 'drain';
    } catch {
      chosen = 'drain';
    }
    if (typeof chosen === 'string') {
      close(chosen);
      return;
    }
    // Nothing is read while a shared limiter answers.
    request.pause();
    chosen.then(close, () => close('drain'));
  };
}
