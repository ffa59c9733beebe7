import { ServiceError } from '@svc/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from './errors.js';
import { globalPlugin } from './global-plugin.js';
import { routeConfigOf } from './route-config.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route may probe SMTP: it gets `limits.probeRequestTimeoutMs` instead of `requestTimeoutMs`. */
    probes?: boolean;
  }
  interface FastifyRequest {
    /** Aborted when the request's deadline passes (or the client goes away): pass it to slow work. */
    deadlineSignal: AbortSignal;
    /** @internal The request's deadline state: null until the plugin's hook or a first use makes it. */
    svcDeadline?: RequestDeadline | null;
  }
}

// Node's timers are kept in one list per duration already, so a timer per request is cheap.
// setTimeout takes at most 2^31 - 1 ms (about 24.8 days); a longer one would fire after 1 ms.
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/** A request's deadline: its timer runs until the request is answered or ends. */
export class RequestDeadline {
  /** The duration of the deadline it is waiting on (for the 503's message). */
  ms = 0;
  timer: NodeJS.Timeout | undefined = undefined;
  // Made only when something reads `request.deadlineSignal`: most routes never do, and an
  // AbortController with its listener per request was a measurable share of a cheap call.
  controller: AbortController | undefined = undefined;
  /** Why the request ended early (its deadline, or the client went away), once it has. */
  ended: unknown = undefined;

  constructor(
    /** Set by the plugin's hook; without it (the plugin not registered) a deadline only aborts the signal. */
    readonly reply: FastifyReply | undefined,
  ) {}

  /** Starts waiting `ms` from now, replacing the deadline it had. */
  start(ms: number): void {
    this.stop();
    this.ms = ms;
    this.timer = setTimeout(expire, Math.min(ms, LONGEST_TIMER_MS), this);
    // A pending deadline never keeps the process alive (a closing server waits for its requests).
    this.timer.unref();
  }

  stop(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** True while the request's body is being read (from preParsing to the body's end). */
  receiving = false;
  /**
   * The body stream being read and the listener waiting for its end, while it is read. The
   * listener is taken off once the answer is sent: a body left unread (refused, its connection
   * kept open a while by `lingerOnClose`) would otherwise keep this deadline, its reply and its
   * request alive through the socket's parser until the connection closes.
   */
  private body: { stream: NodeJS.ReadableStream; ended: () => void } | undefined = undefined;

  /** The request's body starts to be read from `stream`: `receiving` until it ends. */
  receive(stream: NodeJS.ReadableStream): void {
    this.receiving = true;
    const ended = () => {
      this.receiving = false;
      this.body = undefined;
    };
    this.body = { stream, ended };
    stream.once('end', ended);
  }

  /** The answer is being sent: nothing more to wait for. */
  answered(): void {
    this.stop();
    this.body?.stream.off('end', this.body.ended);
    this.body = undefined;
  }

  expired(): void {
    this.timer = undefined;
    // A body still arriving is the client's delay, not an upstream's: 400, and the connection
    // closes (the rest of the body would be read as a next request).
    if (this.receiving && this.reply) {
      this.reply.header('connection', 'close');
      end(this, new ServiceError('invalid_request', 'the request body was not received in time'));
      return;
    }
    end(this, new ServiceError('upstream_timeout', `the request did not finish within ${this.ms} ms`));
  }
}

const expire = (deadline: RequestDeadline) => deadline.expired();

/** The request's deadline state, made on first use. */
function deadlineOf(request: FastifyRequest): RequestDeadline {
  request.svcDeadline ??= new RequestDeadline(undefined);
  return request.svcDeadline;
}

/** Why a request whose client went away ended. */
const clientGone = () => new Error('the client closed the connection');

/**
 * The request's signal, made on first use; aborted already if the request ended before that.
 * Only then does the request listen for its client going away: most requests never ask for the
 * signal, and a `close` listener per request (an onRequestAbort hook) was a measurable share of
 * a cheap call.
 */
function signalOf(request: FastifyRequest): AbortSignal {
  const deadline = deadlineOf(request);
  let controller = deadline.controller;
  if (!controller) {
    controller = new AbortController();
    deadline.controller = controller;
    const raw = request.raw;
    if (deadline.ended === undefined && raw.aborted) end(deadline, clientGone());
    if (deadline.ended !== undefined) controller.abort(deadline.ended);
    else
      raw.once('close', () => {
        if (raw.aborted) end(deadline, clientGone());
      });
  }
  return controller.signal;
}

/** Ends the request early: aborts its signal (if made) and, for our own deadline, answers 503. */
function end(deadline: RequestDeadline, reason: unknown): void {
  if (deadline.ended !== undefined) return;
  deadline.ended = reason;
  deadline.stop();
  deadline.controller?.abort(reason);
  const reply = deadline.reply;
  // Only our own deadline answers; a client that went away gets nothing.
  if (reply && ServiceError.is(reason) && !reply.sent && !reply.raw.headersSent && !reply.raw.destroyed) {
    reply.log.warn({ code: reason.code }, reason.message);
    sendError(reply, reason);
  }
}

/**
 * Gives the request `ms` from now to start answering (replacing the deadline it had), e.g. for a
 * verification that asked for an SMTP probe. When it passes, the client gets 503
 * `upstream_timeout` and `request.deadlineSignal` is aborted so the work can stop.
 */
export function setRequestDeadline(request: FastifyRequest, ms: number): void {
  // Node would run a NaN or negative timer after 1 ms: refused rather than guessed at.
  if (!Number.isFinite(ms) || ms < 0) {
    throw new TypeError(`a request deadline must be a finite number of ms ≥ 0, got ${ms}`);
  }
  const deadline = deadlineOf(request);
  if (deadline.ended === undefined) deadline.start(ms);
}

/**
 * Per-route deadlines: every routed request must start its response within
 * `limits.requestTimeoutMs`, a route with `config.probes` within `limits.probeRequestTimeoutMs`;
 * otherwise 503 `upstream_timeout`, or 400 `invalid_request` ("the request body was not received
 * in time") when the body is what has not arrived, and the connection is closed. A streamed
 * response (NDJSON, CSV) is not cut once it started.
 */
export const deadlinePlugin = globalPlugin('svc-deadline', async (app) => {
  const limits = app.svc.options.limits;
  app.decorateRequest('deadlineSignal', {
    getter(this: FastifyRequest) {
      return signalOf(this);
    },
  });
  // Declared, so every request has the property from the start (one shape for all of them).
  app.decorateRequest('svcDeadline', null);
  app.addHook('onRequest', (request, reply, done) => {
    const deadline = new RequestDeadline(reply);
    request.svcDeadline = deadline;
    deadline.start(routeConfigOf(request)?.probes ? limits.probeRequestTimeoutMs : limits.requestTimeoutMs);
    done();
  });
  // A request with a body is "receiving" from the start of its parsing until its body ended.
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const deadline = request.svcDeadline;
    const headers = request.headers;
    const hasBody =
      headers['transfer-encoding'] !== undefined ||
      (headers['content-length'] !== undefined && headers['content-length'] !== '0');
    if (deadline && hasBody) deadline.receive(payload);
    done(null, payload);
  });
  app.addHook('onSend', (request, _reply, payload, done) => {
    request.svcDeadline?.answered();
    done(null, payload);
  });
});
