import type { FastifyRequest } from 'fastify';
import type { ServerContext } from '../context.js';
import type { UnreadBodyClose } from '../http-server.js';
import type { RateDecision } from '../limiter/limiter.js';

/** The bucket of drained bodies of one account (or of requests without one) from one client address. */
export function drainedBodiesBucketKey(request: FastifyRequest): string {
  const ip = request.clientAddress?.ip ?? request.ip;
  return `drained-bodies:${request.auth?.account.id ?? 'unauthenticated'}:${ip}`;
}

/** Each request's choice, made once: before its answer (to delay it) and when its connection closes. */
const chosen = new WeakMap<FastifyRequest, UnreadBodyClose | Promise<UnreadBodyClose>>();

/** `chooseUnreadBodyClose`, asked once per request (one token of the budget). */
export function unreadBodyCloseFor(
  svc: ServerContext,
  request: FastifyRequest,
): UnreadBodyClose | Promise<UnreadBodyClose> {
  let choice = chosen.get(request);
  if (choice === undefined) {
    choice = chooseUnreadBodyClose(svc, request);
    chosen.set(request, choice);
  }
  return choice;
}

/**
 * How a connection whose body was refused unread closes (`lingerOnClose`): the first
 * `limits.drainedBodiesPerMinute` of an account's refused bodies from one client address in a
 * minute are drained (read and dropped, so a client that writes before it reads gets its answer);
 * past that, the rest of each is not read and its answer waits (`hold`, `delayAnswerUnread`): a client that keeps sending bodies the server
 * refuses no longer makes it read megabytes it will drop. Requests without an account share
 * their address's bucket. Answers at once with a limiter that has `takeSync`, else a promise.
 */
export function chooseUnreadBodyClose(
  svc: ServerContext,
  request: FastifyRequest,
): UnreadBodyClose | Promise<UnreadBodyClose> {
  const perMinute = svc.options.limits.drainedBodiesPerMinute;
  const bucket = { ratePerSecond: perMinute / 60, burst: perMinute };
  const key = drainedBodiesBucketKey(request);
  const now = svc.now();
  const choose = (decision: RateDecision): UnreadBodyClose => (decision.allowed ? 'drain' : 'hold');
  return svc.limiter.takeSync
    ? choose(svc.limiter.takeSync(key, bucket, now))
    : svc.limiter.take(key, bucket, now).then(choose);
}
