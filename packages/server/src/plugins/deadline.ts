import { ServiceError } from '@svc/core';
import type { FastifyRequest } from 'fastify';
import { sendError } from './errors.js';
import { globalPlugin } from './global-plugin.js';

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

interface DeadlineState {
  [TIMER]?: NodeJS.Timeout;
  [CONTROLLER]?: AbortController;
}

function state(request: FastifyRequest): DeadlineState {
  return request as unknown as DeadlineState;
}

function clear(request: FastifyRequest): void {
  const timer = state(request)[TIMER];
  if (timer) clearTimeout(timer);
  state(request)[TIMER] = undefined;
}

/**
 * Gives the request `ms` from now to start answering (replacing the deadline it had), e.g. for a
 * verification that asked for an SMTP probe. When it passes, the client gets 503
 * `upstream_timeout` and `request.deadlineSignal` is aborted so the work can stop.
 */
export function setRequestDeadline(request: FastifyRequest, ms: number): void {
  clear(request);
  const controller = state(request)[CONTROLLER];
  if (!controller || controller.signal.aborted) return;
  const timer = setTimeout(() => {
    controller.abort(new ServiceError('upstream_timeout', `the request did not finish within ${ms} ms`));
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
  app.decorateRequest('deadlineSignal', null as unknown as AbortSignal);
  app.addHook('onRequest', async (request, reply) => {
    const controller = new AbortController();
    state(request)[CONTROLLER] = controller;
    request.deadlineSignal = controller.signal;
    controller.signal.addEventListener(
      'abort',
      () => {
        clear(request);
        const reason: unknown = controller.signal.reason;
        // Only our own deadline answers; a client that went away gets nothing.
        if (ServiceError.is(reason) && !reply.sent && !reply.raw.headersSent && !reply.raw.destroyed) {
          reply.log.warn({ code: reason.code }, reason.message);
          sendError(reply, reason);
        }
      },
      { once: true },
    );
    setRequestDeadline(
      request,
      request.routeOptions.config?.probes ? limits.probeRequestTimeoutMs : limits.requestTimeoutMs,
    );
  });
  app.addHook('onSend', async (request) => {
    clear(request);
  });
  app.addHook('onRequestAbort', async (request) => {
    clear(request);
    state(request)[CONTROLLER]?.abort(new Error('the client closed the connection'));
  });
});
