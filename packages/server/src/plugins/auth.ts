import { ServiceError } from '@svc/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthContext } from '../context.js';
import { authenticate, cachedCredential, managementRefusal } from '../control-plane/accounts.js';
import { presentedCredentialHash } from '../control-plane/presented-credential.js';
import { parseSecret } from '../control-plane/secrets.js';
import { ENDPOINTS, type EndpointId } from '../endpoints.js';
import type { RateDecision } from '../limiter/limiter.js';
import { globalPlugin } from './global-plugin.js';
import { routeConfigOf } from './route-config.js';

/**
 * Sets the `X-RateLimit-*` headers from a bucket's decision. Header names on every response are
 * written in lower case, as Fastify keeps them (and HTTP compares them): a name that is already
 * lower case is used as it is, where `X-RateLimit-Limit` became a new string to lower-case and
 * look up again on every call.
 */
export function setRateLimitHeaders(reply: FastifyReply, decision: RateDecision): void {
  reply.header('x-ratelimit-limit', String(decision.limit));
  reply.header('x-ratelimit-remaining', String(decision.remaining));
  reply.header('x-ratelimit-reset', String(decision.resetSeconds));
}

/** The endpoint a request's route declared (`config.endpoint`), if any. */
export function endpointOf(request: FastifyRequest): EndpointId | undefined {
  return routeConfigOf(request)?.endpoint;
}

const refused = (message: string) => new ServiceError('invalid_api_key', message);

/**
 * Why an authenticated caller still may not call `endpoint` at `now`; null when it may. Managing
 * the account (`live_key` endpoints) needs a live key with no end date, or a token minted from
 * one with that scope: a key in its rotation grace period (or a token it minted) manages nothing.
 */
function credentialProblem(auth: AuthContext, endpoint: EndpointId, now: number): string | null {
  const need = ENDPOINTS[endpoint].auth;
  // A token reaches key management only with that endpoint named in its scopes (see
  // MANAGEMENT_SCOPES: minted from a live key, for an hour at most); never the minting of tokens.
  const scopedManagement = need === 'live_key' && auth.token?.scopes?.includes(endpoint) === true;
  if (auth.token && need !== 'any' && !scopedManagement) {
    return need === 'live_key'
      ? `a token can manage keys and secrets only with ${endpoint} in its scopes; present a live API key (sk_live_…) or mint a token with that scope`
      : 'a token cannot call this endpoint; present an API key (sk_live_… or sk_test_…)';
  }
  if (need === 'live_key') {
    const refusal = managementRefusal(auth.key, now);
    if (refusal) return refusal;
  }
  return tokenScopeProblem(auth, endpoint);
}

/** Why a scoped token may not reach `endpoint` (directly or through a batch job); null when it may. */
function tokenScopeProblem(auth: AuthContext, endpoint: EndpointId): string | null {
  if (auth.token?.scopes && !auth.token.scopes.includes(endpoint)) {
    return `this token's scopes (${auth.token.scopes.join(', ')}) do not include ${endpoint}`;
  }
  return null;
}

/**
 * Refuses (401 `invalid_api_key`, as the auth hook does for the route's own endpoint) a scoped
 * token's batch job whose type stands for an endpoint outside its scopes: `batch_create` alone
 * must not geolocate, verify or enrich what the token could not ask for directly.
 */
export function assertTokenScope(auth: AuthContext, endpoint: EndpointId, why: string): void {
  const problem = tokenScopeProblem(auth, endpoint);
  if (problem) throw refused(`${problem}, which ${why} stands for`);
}

/**
 * Authenticates every request to an endpoint that needs a key (`config.endpoint`, see
 * ENDPOINTS): `X-API-Key` carries a key (`sk_live_…`, `sk_test_…`) or a token (`tok_…`).
 * Missing, malformed, unknown, revoked or expired → 401 `invalid_api_key`; so is a token on an
 * endpoint that needs a key, a test key where a live key is needed, and a token outside its
 * scopes. Failed credentials are counted per client address (`limits.authFailuresPerMinute`):
 * past the limit, that address's failures are 429 `rate_limited` with `Retry-After` instead of
 * 401, which slows guessing; a working credential is always looked up and always passes, so
 * clients sharing an address with a guesser (a NAT, a proxy) are never refused for it. Runs at
 * onRequest, before the body is read.
 */
export const authPlugin = globalPlugin('svc-auth', async (app) => {
  const svc = app.svc;
  // An integer of at least 1: the settings' rules (config.ts) are checked when the context is made.
  const perMinute = svc.options.limits.authFailuresPerMinute;
  const failureBucket = { ratePerSecond: perMinute / 60, burst: perMinute };
  app.decorateRequest('auth', null);

  /**
   * The path of a credential not answered from the cache: the store, then the refusals. The
   * address's failure bucket is consulted only once a credential has failed, so it slows failures
   * and never refuses a working credential, whoever else shares the address.
   */
  const check = async (
    request: FastifyRequest,
    reply: FastifyReply,
    endpoint: EndpointId,
    presented: string | undefined,
  ): Promise<void> => {
    const bucket = `auth-failures:${request.clientAddress?.ip ?? request.ip}`;
    const now = svc.now();
    const auth = presented ? await authenticate(svc, presented) : null;
    if (!auth) {
      // A failure, counted; past the address's limit it is answered 429 with Retry-After.
      const counted = await svc.limiter.take(bucket, failureBucket, now, 1);
      setRateLimitHeaders(reply, counted);
      if (!counted.allowed) {
        throw new ServiceError(
          'rate_limited',
          `too many failed authentications from this address; retry in ${counted.retryAfterSeconds} s`,
          { retryAfterSeconds: counted.retryAfterSeconds },
        );
      }
      if (!presented)
        throw refused(
          'the X-API-Key header is missing; send your API key (sk_live_… or sk_test_…) or a token',
        );
      if (!parseSecret(presented))
        throw refused('X-API-Key is not an API key or token (they start with sk_live_, sk_test_ or tok_)');
      throw refused('the API key is unknown, revoked or expired');
    }
    const problem = credentialProblem(auth, endpoint, now);
    if (problem) {
      // A working credential used where it may not be: its own 401, never a 429 for others'
      // failures, and not counted (it is no guess).
      setRateLimitHeaders(reply, await svc.limiter.take(bucket, failureBucket, now, 0));
      throw refused(problem);
    }
    request.auth = auth;
  };

  // A callback hook, not an async one (see global-plugin.ts): a credential verified in the last
  // seconds is answered at once; anything else takes `check`, a promise.
  app.addHook('onRequest', (request, reply, done) => {
    const endpoint = endpointOf(request);
    if (!endpoint || ENDPOINTS[endpoint].auth === 'none') {
      done();
      return;
    }
    const header = request.headers['x-api-key'];
    const presented = Array.isArray(header) ? undefined : header;
    const known = presented
      ? cachedCredential(svc, presented, presentedCredentialHash(request.raw.socket, presented))
      : undefined;
    if (known && credentialProblem(known, endpoint, svc.now()) === null) {
      request.auth = known;
      done();
      return;
    }
    check(request, reply, endpoint, presented).then(() => done(), done);
  });
});
