import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  BulkVerifyRequestSchema,
  type BulkVerifyResult,
  BulkVerifyResultSchema,
  type EmailVerificationResult,
  EmailVerificationResultSchema,
  ErrorBodySchema,
  VerifyEmailRequestSchema,
} from '@svc/core';
import type { Verifier } from '@svc/email-verifier';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { servedWithHistory } from '../feedback/serve-feedback.js';
import { setRequestDeadline } from '../plugins/deadline.js';
import { assertAllowance } from '../plugins/limits.js';
import { createSandboxVerifier } from '../sandbox.js';
import { verifyCacheNamespace } from '../verify-cache.js';

/** The query of DELETE /v2/verify/email/cache. */
const CacheInvalidationQuerySchema = Type.Object(
  {
    email: Type.String({
      description: 'The address whose cached results to forget',
      examples: ['alice@example.com'],
    }),
  },
  { additionalProperties: false },
);

/** The answer of DELETE /v2/verify/email/cache. */
export const CacheInvalidationSchema = Type.Object(
  {
    object: Type.Literal('verify_cache_invalidation'),
    email: Type.String({ description: 'The address as given' }),
    deleted: Type.Integer({
      minimum: 0,
      description: 'Cached results dropped (one per option variant: probe_mailbox, check_disposable)',
    }),
  },
  { description: "Forgotten cached results of an address in the caller's namespace" },
);

/** Adds up a bulk call's results by state. */
export function summarize(results: readonly EmailVerificationResult[]): BulkVerifyResult['summary'] {
  const summary = { total: results.length, deliverable: 0, undeliverable: 0, risky: 0, unknown: 0 };
  for (const result of results) summary[result.state]++;
  return summary;
}

/**
 * POST /v2/verify/email and POST /v2/verify/email/bulk. Test keys get the sandbox verifier (no
 * DNS, no SMTP; magic local parts), live keys the server's verifier. The verifier's errors are
 * the API's: a string that is not an address or a domain without MX hints → 422 `unprocessable`,
 * DNS failing or timing out, or the resolver failing its canary check → 503 `upstream_timeout`
 * (bulk: `unknown` / `dns_unavailable` results, not billed); an SMTP timeout is a result (`unknown`,
 * `smtp_timeout`). Every result carries the request's own id (`requestId` of the verifier call).
 */
export const verifyRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const sandbox = createSandboxVerifier({ clock: () => new Date(app.svc.now()) });
  const verifierFor = (request: FastifyRequest): Verifier =>
    request.auth?.environment === 'test' ? sandbox : app.svc.verifier;
  const { probeRequestTimeoutMs } = app.svc.options.limits;
  // Each account reads and writes its own cached results unless the operator shares them.
  const cacheNamespace = (request: FastifyRequest) =>
    verifyCacheNamespace(app.svc.options, request.auth?.account.id ?? null);
  // Live verifications carry the account's delivery history when feedback is on (a result with
  // none recorded carries no `history`); test keys never do.
  const withHistory = async <T extends EmailVerificationResult>(request: FastifyRequest, results: T[]) => {
    const feedback = app.svc.feedback;
    if (!feedback || request.auth?.environment !== 'live') return results;
    return servedWithHistory(feedback, request.auth.account.id, results);
  };

  app.post(
    '/v2/verify/email',
    {
      config: { endpoint: 'verify_email' },
      schema: {
        operationId: 'verifyEmail',
        tags: ['verification'],
        summary: 'Verify one email address',
        description:
          'Syntax, disposable/free/role lists, typo suggestion and DNS/MX; with `options.probe_mailbox` also an SMTP probe of the mailbox that sends no mail. A string that is not an address, or a domain with no MX hints, is 422 `unprocessable`; a DNS timeout is 503 `upstream_timeout`, as is any verification while the server’s DNS resolver fails its canary check (the message names the resolver and what it denied; see GET /health); an SMTP timeout is a 200 with state `unknown` (reason `smtp_timeout`). A probed address verified again within its state’s TTL is answered from the result cache without a probe: the result then carries `cached_at` and is billed like any other; `options.fresh` probes again and replaces it.',
        body: VerifyEmailRequestSchema,
        response: { 200: EmailVerificationResultSchema, 422: ErrorBodySchema, 503: ErrorBodySchema },
      },
    },
    async (request) => {
      const { email, options } = request.body;
      // A probe waits on remote mail servers: it gets the longer deadline, not the default one.
      if (options?.probe_mailbox) setRequestDeadline(request, probeRequestTimeoutMs);
      // The result carries the request's id as the verifier made it: no copy to stamp it.
      const result = await verifierFor(request).verify(email, options, {
        cacheNamespace: cacheNamespace(request),
        requestId: request.id,
      });
      return app.svc.feedback ? ((await withHistory(request, [result]))[0] ?? result) : result;
    },
  );

  app.post(
    '/v2/verify/email/bulk',
    {
      // Up to 10,000 addresses: always the longer deadline.
      config: { endpoint: 'verify_email_bulk', probes: true },
      schema: {
        operationId: 'verifyEmailBulk',
        tags: ['verification'],
        summary: 'Verify up to 10,000 email addresses',
        description:
          'Results in input order (duplicates verified once), each as from POST /verify/email, plus counts by state. Per-address problems (not an address, no MX, DNS failure) are results, not errors; probed addresses in the result cache are answered from it (`cached_at`) unless `options.fresh`. Billed one unit per address, cached or not, except addresses left `unknown` with reason `dns_unavailable` (the server’s DNS resolver failed its canary check, so nothing was verified: not billed); a call the month’s allowance cannot cover is refused up front with 402 `quota_exceeded`.',
        body: BulkVerifyRequestSchema,
        response: { 200: BulkVerifyResultSchema },
      },
    },
    async (request) => {
      const { emails, options } = request.body;
      await assertAllowance(app.svc, request, emails.length);
      const verified = await verifierFor(request).verifyMany(emails, options, {
        signal: request.deadlineSignal ?? undefined,
        cacheNamespace: cacheNamespace(request),
        requestId: request.id,
      });
      const results = await withHistory(request, verified);
      // An answer that is not a verdict costs nothing (DESIGN §12): records left unknown because the
      // resolver failed its canary check are not billed.
      request.billableUnits = results.filter((result) => !result.reasons.includes('dns_unavailable')).length;
      return { results, summary: summarize(results) };
    },
  );

  app.delete(
    '/v2/verify/email/cache',
    {
      config: { endpoint: 'verify_email_cache_delete' },
      schema: {
        operationId: 'deleteVerifyEmailCache',
        tags: ['verification'],
        summary: 'Forget the cached results of an address',
        description:
          "Drops the result cache's entries for `email` (every option variant) in the caller's namespace (its account's, or the one shared namespace when the operator shares results across accounts), so the next probing verification of it probes again. Not billed. Test keys have no cache: 0. A string that is not an address is 422 `unprocessable`.",
        querystring: CacheInvalidationQuerySchema,
        response: { 200: CacheInvalidationSchema, 422: ErrorBodySchema },
      },
    },
    async (request) => {
      const { email } = request.query;
      const deleted = await verifierFor(request).invalidateCached(email, {
        cacheNamespace: cacheNamespace(request),
      });
      return { object: 'verify_cache_invalidation' as const, email, deleted };
    },
  );
};
