import { type BatchJobType, JOB_TYPES, ServiceError } from '@svc/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthContext, ServerContext } from '../context.js';
import type { Plan } from '../control-plane/store.js';
import { ENDPOINTS, type EndpointId } from '../endpoints.js';
import type { RateDecision } from '../limiter/limiter.js';
import { endpointOf, setRateLimitHeaders } from './auth.js';
import { globalPlugin } from './global-plugin.js';
import { usageMonth } from './month.js';

/** The bucket all keys and tokens of an account share (so minting more cannot raise the limit). */
const accountBucketKey = (accountId: string): string => `account:${accountId}`;

/** The bucket of requests without an account from one client address. */
export function unauthenticatedBucketKey(ip: string): string {
  return `unauthenticated:${ip}`;
}

/**
 * Takes one request without an account (a key-less route, an unknown path, a wrong method, a
 * malformed URL) from its client address's bucket (`limits.unauthenticatedPerSecond`, burst
 * `limits.unauthenticatedBurst`) and sets the `X-RateLimit-*` headers from it. Answers at once
 * with a limiter that has `takeSync` (the memory one), else a promise.
 */
export function takeUnauthenticated(
  svc: ServerContext,
  request: FastifyRequest,
  reply: FastifyReply,
): RateDecision | Promise<RateDecision> {
  const { unauthenticatedPerSecond, unauthenticatedBurst } = svc.options.limits;
  const bucket = { ratePerSecond: unauthenticatedPerSecond, burst: unauthenticatedBurst };
  const key = unauthenticatedBucketKey(request.clientAddress?.ip ?? request.ip);
  const now = svc.now();
  const set = (decision: RateDecision) => {
    setRateLimitHeaders(reply, decision);
    return decision;
  };
  return svc.limiter.takeSync
    ? set(svc.limiter.takeSync(key, bucket, now))
    : svc.limiter.take(key, bucket, now).then(set);
}

function unauthenticatedRefusal(svc: ServerContext, decision: RateDecision): ServiceError {
  const { unauthenticatedPerSecond, unauthenticatedBurst } = svc.options.limits;
  return new ServiceError(
    'rate_limited',
    `too many requests without an API key from this address (${unauthenticatedPerSecond} per second, burst ${unauthenticatedBurst}); retry in ${decision.retryAfterSeconds} s`,
    { retryAfterSeconds: decision.retryAfterSeconds },
  );
}

/** Sets `X-Quota-Limit` / `X-Quota-Remaining` (omitted on unlimited plans). */
export function setQuotaHeaders(reply: FastifyReply, allowance: number | null, used: number): void {
  if (allowance === null) return;
  reply.header('x-quota-limit', String(allowance));
  reply.header('x-quota-remaining', String(Math.max(0, allowance - used)));
}

/**
 * Plan gating, the one place it lives: refuses (403 `endpoint_not_in_plan`) an endpoint the plan
 * does not list. Every route's endpoint is checked by the limits hook below; a batch job is also
 * checked for the endpoint its type stands for (`JOB_TYPES[type].endpoint`), so a plan without
 * `geo_ip` cannot geolocate through `POST /v2/batch` either.
 */
export function assertEndpointInPlan(plan: Plan, endpoint: EndpointId): void {
  if (ENDPOINTS[endpoint].planGated && plan.endpoints !== null && !plan.endpoints.includes(endpoint)) {
    throw new ServiceError(
      'endpoint_not_in_plan',
      `the ${plan.name} plan does not include ${endpoint}; upgrade the plan to call it`,
    );
  }
}

/** The endpoint a batch job type stands for (its plan gate). */
export function jobTypeEndpoint(type: BatchJobType): EndpointId {
  return JOB_TYPES[type].endpoint;
}

function quotaError(auth: AuthContext, used: number, units: number): ServiceError {
  const allowance = auth.plan.monthly_allowance ?? 0;
  const left = Math.max(0, allowance - used);
  const month = 'this month (UTC)';
  return new ServiceError(
    'quota_exceeded',
    units === 1
      ? `the ${auth.plan.name} plan's allowance of ${allowance} units ${month} is used up`
      : `this request needs ${units} units but ${left} of the ${auth.plan.name} plan's ${allowance} units ${month} are left`,
  );
}

/**
 * Refuses up front (402 `quota_exceeded`) a request that would bill `units` beyond the month's
 * allowance: bulk verification and batch submission call it with their record count before
 * doing any work. Test keys and unlimited plans always pass (they are never billed).
 */
export async function assertAllowance(
  svc: ServerContext,
  request: FastifyRequest,
  units: number,
): Promise<void> {
  const auth = request.auth;
  if (auth?.environment !== 'live' || auth.plan.monthly_allowance === null) return;
  const used = await svc.controlPlane.usedUnits(auth.account.id, usageMonth(svc.now()));
  if (used + units > auth.plan.monthly_allowance) throw quotaError(auth, used, units);
}

/**
 * Per-account limits on every authenticated request, in this order: the rate limit (a token
 * bucket of the plan's `rate_per_second` and `burst`, shared by all the account's keys and
 * tokens; 429 `rate_limited` with `Retry-After`), the plan's endpoints (403
 * `endpoint_not_in_plan`), the month's allowance on billable endpoints for live keys (402
 * `quota_exceeded`). Every response to an authenticated request carries `X-RateLimit-Limit`
 * (the burst), `X-RateLimit-Remaining` (whole requests left now) and `X-RateLimit-Reset` (seconds
 * until the bucket is full), and on plans with an allowance `X-Quota-Limit` and
 * `X-Quota-Remaining` (units left this month, live usage). A request without an account (a
 * key-less route, an unknown path or method) takes from its client address's bucket instead
 * (`takeUnauthenticated`), with the same headers and 429. Register after auth.
 */
export const limitsPlugin = globalPlugin('svc-limits', async (app) => {
  const svc = app.svc;

  /** Sets the headers from the decision and the month's usage, and refuses what is over a limit. */
  const enforce = (
    auth: AuthContext,
    endpoint: EndpointId,
    reply: FastifyReply,
    decision: RateDecision,
    used: number,
  ): void => {
    const { plan } = auth;
    setRateLimitHeaders(reply, decision);
    setQuotaHeaders(reply, plan.monthly_allowance, used);
    if (!decision.allowed) {
      throw new ServiceError(
        'rate_limited',
        `the ${plan.name} plan allows ${plan.rate_per_second} requests per second (burst ${plan.burst}); retry in ${decision.retryAfterSeconds} s`,
        { retryAfterSeconds: decision.retryAfterSeconds },
      );
    }
    assertEndpointInPlan(plan, endpoint);
    if (
      ENDPOINTS[endpoint].billable &&
      auth.environment === 'live' &&
      plan.monthly_allowance !== null &&
      used >= plan.monthly_allowance
    ) {
      throw quotaError(auth, used, 1);
    }
  };

  /** With a limiter or a month's usage that must be asked for. */
  const limit = async (auth: AuthContext, endpoint: EndpointId, reply: FastifyReply, now: number) => {
    const { plan } = auth;
    const decision = await svc.limiter.take(
      accountBucketKey(auth.account.id),
      { ratePerSecond: plan.rate_per_second, burst: plan.burst },
      now,
    );
    const used =
      plan.monthly_allowance === null
        ? 0
        : await svc.controlPlane.usedUnits(auth.account.id, usageMonth(now));
    enforce(auth, endpoint, reply, decision, used);
  };

  // A callback hook (see global-plugin.ts): on a plan without an allowance and a limiter that
  // answers at once (the memory one), nothing here waits.
  app.addHook('onRequest', (request, reply, done) => {
    const auth = request.auth;
    const endpoint = endpointOf(request);
    if (!auth || !endpoint) {
      // No account (auth refuses keyed endpoints before this): the client address's bucket.
      const decided = takeUnauthenticated(svc, request, reply);
      const refuse = (decision: RateDecision) =>
        done(decision.allowed ? undefined : unauthenticatedRefusal(svc, decision));
      if ('then' in decided) decided.then(refuse, done);
      else refuse(decided);
      return;
    }
    const now = svc.now();
    const { plan } = auth;
    if (plan.monthly_allowance === null && svc.limiter.takeSync) {
      const decision = svc.limiter.takeSync(
        accountBucketKey(auth.account.id),
        { ratePerSecond: plan.rate_per_second, burst: plan.burst },
        now,
      );
      enforce(auth, endpoint, reply, decision, 0);
      done();
      return;
    }
    limit(auth, endpoint, reply, now).then(() => done(), done);
  });
});
