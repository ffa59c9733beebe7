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
  }
}

const TIMER = Symbol('svc.deadline.timer');
const CONTROLLER = Symbol('svc.deadline.controller');
const ENDED = Symbol('svc.deadline.ended');
const REPLY = Symbol('svc.deadline.reply');

interface DeadlineState {
  [TIMER]?: NodeJS.Timeout;
  // Made only when something reads `request.deadlineSignal`: most routes never do, and an
  // AbortController with its listener per request was a measurable share of a cheap call.
  [CONTROLLER]?: AbortController;
  // Why the request ended early (its deadline, or the client went away), once it has.
  [ENDED]?: unknown;
  [REPLY]?: FastifyReply;
}

function state(request: FastifyRequest): DeadlineState {
  return request as unknown as DeadlineState;
}

function clear(request: FastifyRequest): void {
  const timer = state(request)[TIMER];
  if (timer) clearTimeout(timer);
  state(request)[TIMER] = undefined;
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
  const own = state(request);
  let controller = own[CONTROLLER];
  if (!controller) {
    controller = new AbortController();
    own[CONTROLLER] = controller;
    const raw = request.raw;
    if (own[ENDED] === undefined && raw.aborted) end(request, clientGone());
    if (own[ENDED] !== undefined) controller.abort(own[ENDED]);
    else
      raw.once('close', () => {
        if (raw.aborted) end(request, clientGone());
      });
  }
  return controller.signal;
}

/** Ends the request early: aborts its signal (if made) and, for our own deadline, answers 503. */
function end(request: FastifyRequest, reason: unknown): void {
  const own = state(request);
  if (own[ENDED] !== undefined) return;
  own[ENDED] = reason;
  clear(request);
  own[CONTROLLER]?.abort(reason);
  const reply = own[REPLY];
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
  clear(request);
  if (state(request)[ENDED] !== undefined) return;
  const timer = setTimeout(() => {
    end(request, new ServiceError('upstream_timeout', `the request did not finish within ${ms} ms`));
  }, ms);
  timer.unref();
  state(request)[TIMER] = timer;
}

/**
 * Per-route deadlines: every routed request must start its response within
 * `limits.requestTimeoutMs`, a route with `config.probes` within `limits.probeRequestTimeoutMs`;
 * otherwise 503 `upstream_timeout`. A streamed response (NDJSON, CSV) is not cut once it started.
 */
export const deadlinePlugin = globalPlugin('svc-deadline', async (app) => {
  const limits = app.svc.options.limits;
  app.decorateRequest('deadlineSignal', {
    getter(this: FastifyRequest) {
      return signalOf(this);
    },
  });
  app.addHook('onRequest', (request, reply, done) => {
    state(request)[REPLY] = reply;
    setRequestDeadline(
      request,
      routeConfigOf(request)?.probes ? limits.probeRequestTimeoutMs : limits.requestTimeoutMs,
    );
    done();
  });
  app.addHook('onSend', (request, _reply, payload, done) => {
    clear(request);
    done(null, payload);
  });
});
