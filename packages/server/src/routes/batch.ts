import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  type BatchRunner,
  createBatchRunner,
  type EventView,
  MAX_WEBHOOK_URL_LENGTH,
  type RecordResult,
  type SubmitRequest,
  sendWebhookEvent,
} from '@svc/batch-runner';
import {
  type BatchJob,
  BatchJobRequestSchema,
  BatchJobSchema,
  createId,
  ErrorBodySchema,
  isJobTypeId,
  jobTypeList,
  PageSchema,
  ServiceError,
} from '@svc/core';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AuthContext } from '../context.js';
import { webhookSigningSecrets } from '../control-plane/accounts.js';
import { assertTokenScope } from '../plugins/auth.js';
import { jsonBodyLimits } from '../plugins/json-body.js';
import { assertAllowance, assertEndpointInPlan, jobTypeEndpoint } from '../plugins/limits.js';
import {
  BatchResultSchema,
  EventDeliverySchema,
  EventIdParams,
  IdempotencyHeaders,
  JobIdParams,
  ListQuery,
  ResultsQuery,
  SubmitQuery,
  WebhookTestBody,
  WebhookTestResult,
} from './batch-schemas.js';
import { parseUploadedRecords } from './batch-upload.js';
import { refusedWebhookTarget, webhookAddressGuard } from './batch-webhooks.js';

/** Where a job's results are read: the `results_url` of every job this server shows. */
export function batchResultsPath(id: string): string {
  return `/v2/batch/${id}/results`;
}

const iso = (ms: number) => new Date(ms).toISOString();

function authOf(request: FastifyRequest): AuthContext {
  if (!request.auth) throw new ServiceError('invalid_api_key', 'an API key is required');
  return request.auth;
}

const withResultsUrl = (job: BatchJob): BatchJob => ({
  ...job,
  results_url: job.results_url ?? batchResultsPath(job.id),
});

function resultView(result: RecordResult) {
  return {
    index: result.index,
    input: result.input,
    ok: result.ok,
    result: result.ok ? (result.result ?? null) : null,
    error: result.error ?? null,
  };
}

function eventView(event: EventView) {
  return {
    id: event.eventId,
    type: event.type,
    job_id: event.jobId,
    url: event.url,
    created_at: iso(event.created * 1000),
    state: event.state,
    next_attempt_at: event.nextAttemptAt === null ? null : iso(event.nextAttemptAt),
    attempts: event.attempts.map((attempt) => ({
      at: iso(attempt.at),
      status: attempt.status,
      latency_ms: attempt.latencyMs,
      error: attempt.error,
      trigger: attempt.trigger ?? ('schedule' as const),
    })),
  };
}

const UPLOAD_TYPES = ['text/csv', 'text/plain'];

/** The answer for an unknown id, or another account's job or event (the same, on purpose). */
const NOT_FOUND = { ...ErrorBodySchema, description: '`not_found`: no such job or event on this account' };

/**
 * Batch jobs and their webhooks (DESIGN §8 "Batch"): submit (JSON or an uploaded list), poll,
 * list, results (cursor pages or a streamed NDJSON/CSV export), cancel, the job's webhook events
 * with their attempts, resend of one event, and a signed test event. Every read is scoped by
 * the caller's account: another account's job or event is 404 `not_found`, as an unknown id is.
 * Cursors are opaque, HMAC-signed for this account and list, and expire after 24 h.
 */
export const batchRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const svc = app.svc;
  const isAllowedTarget = webhookAddressGuard(svc.options);
  // Reads need no processors: without a runner (a server that only stores jobs) one over the store serves them.
  let reader: BatchRunner | undefined;
  const runner = (): BatchRunner => {
    if (svc.batch.runner) return svc.batch.runner;
    reader ??= createBatchRunner({ store: svc.batch.store, processors: [] });
    return reader;
  };
  const scopeOf = (request: FastifyRequest) => ({ accountId: authOf(request).account.id });

  // A delivery attempt a request waits for (resend, test event) leaves the request's own deadline room to answer.
  const attemptTimeoutMs = Math.max(1000, Math.min(10_000, svc.options.limits.requestTimeoutMs - 2000));

  // An uploaded list is text; its size limit is the upload limit (the route's bodyLimit is the
  // larger of it and the JSON body's limit, which the json-body plugin checks).
  const { uploadBodyBytes } = svc.options.limits;
  app.addContentTypeParser(UPLOAD_TYPES, { parseAs: 'string' }, (_request, body, done) => {
    if (Buffer.byteLength(body as string) > uploadBodyBytes) {
      done(
        new ServiceError(
          'invalid_request',
          `the uploaded list is larger than the upload limit of ${uploadBodyBytes} bytes`,
        ),
      );
      return;
    }
    done(null, body);
  });
  // Any other body type: say what these routes take (Fastify's own error would only say JSON).
  app.addContentTypeParser('*', (request, _payload, done) => {
    const type = request.headers['content-type'];
    const accepted =
      request.routeOptions.url === '/v2/batch'
        ? 'application/json, text/csv or text/plain'
        : 'application/json';
    done(
      new ServiceError(
        'invalid_request',
        `Content-Type ${type ? JSON.stringify(type) : '(none)'} is not accepted here; send ${accepted}`,
      ),
    );
  });

  app.post(
    '/v2/batch',
    {
      config: { endpoint: 'batch_create' },
      bodyLimit: Math.max(
        uploadBodyBytes,
        jsonBodyLimits('batch_create', svc.options.limits.jsonBodyBytes).bytes,
      ),
      schema: {
        operationId: 'createBatchJob',
        tags: ['batch'],
        summary: 'Create an asynchronous batch job',
        description:
          'A JSON body (`type`, `records`, `webhook_url`), or an uploaded list: `Content-Type: text/plain` (one record per line; blank lines and # comments skipped) or `text/csv` (the column named by `?column=`, else the first column, a header row named like email or ip skipped), with `?type=` and optionally `?webhook_url=`. Answers 202 with the job and a `Location` header. `Idempotency-Key` (per account) returns the first job for a retried request. A webhook URL at a private or reserved address is refused unless the operator allow-listed it. The records count against the monthly allowance, checked before the job is created. Jobs of test keys (sandbox jobs) are not billed but limited per account: jobs a day (UTC) and records waiting to be processed; past either, 429 `rate_limited` with `Retry-After`.',
        querystring: SubmitQuery,
        headers: IdempotencyHeaders,
        body: {
          content: {
            'application/json': { schema: BatchJobRequestSchema },
            'text/csv': { schema: Type.String({ description: 'A CSV file' }) },
            'text/plain': { schema: Type.String({ description: 'One record per line' }) },
          },
        } as unknown as typeof BatchJobRequestSchema,
        response: {
          202: {
            ...BatchJobSchema,
            headers: { Location: { type: 'string', description: 'The job: /v2/batch/{id}' } },
          } as typeof BatchJobSchema,
        },
      },
    },
    async (request, reply) => {
      const auth = authOf(request);
      const body = request.body as unknown;
      let submission: SubmitRequest;
      if (typeof body === 'string') {
        const { type, column, webhook_url } = request.query;
        if (!type) {
          throw new ServiceError(
            'invalid_request',
            `an uploaded list needs the job type in the query: ?type= one of ${jobTypeList()}`,
          );
        }
        const csv = (request.headers['content-type'] ?? '').toLowerCase().startsWith('text/csv');
        if (!csv && column !== undefined) {
          throw new ServiceError(
            'invalid_request',
            '?column= applies to text/csv uploads; text/plain has one record per line',
          );
        }
        const records = parseUploadedRecords(body, csv ? 'csv' : 'plain', column);
        if (records.length === 0)
          throw new ServiceError('invalid_request', 'the uploaded list has no records');
        submission = { type, records, webhook_url: webhook_url ?? null };
      } else {
        submission = { ...(body as SubmitRequest) };
      }
      // A job type is gated by the endpoint it stands for, as that endpoint's own route is.
      // So is a scoped token: its scopes must name that endpoint too, not only batch_create.
      if (isJobTypeId(submission.type)) {
        const endpoint = jobTypeEndpoint(submission.type);
        assertEndpointInPlan(auth.plan, endpoint);
        assertTokenScope(auth, endpoint, `a ${submission.type} batch job`);
      }
      submission.idempotency_key = request.headers['idempotency-key'] ?? null;
      submission.account_id = auth.account.id;
      // Test keys run in the sandbox, batch included: the processors make no outbound calls.
      submission.sandbox = auth.environment === 'test';
      // Never billed, so bounded here instead: jobs a day and records waiting, per account (429).
      if (submission.sandbox) {
        submission.quota = {
          jobsPerDay: svc.options.batch.sandboxJobsPerDay,
          recordsInFlight: svc.options.batch.sandboxRecordsInFlight,
        };
      }
      const records = Array.isArray(submission.records) ? submission.records.length : 0;
      if (typeof submission.webhook_url === 'string' && URL.canParse(submission.webhook_url)) {
        const refused = await refusedWebhookTarget(submission.webhook_url, isAllowedTarget);
        if (refused) throw new ServiceError('invalid_request', refused);
      }
      if (!svc.batch.runner) {
        throw new ServiceError(
          'internal_error',
          'this server runs no batch jobs (it was started without a batch runner)',
        );
      }
      // Refused up front, before a job exists (402), when the records would exceed the month's allowance.
      await assertAllowance(svc, request, records);
      const { job, created } = await svc.batch.runner.submitJob(submission);
      // A retried request (same Idempotency-Key) gets its job back and is not billed again.
      request.billableUnits = created ? job.total : 0;
      return reply.code(202).header('Location', `/v2/batch/${job.id}`).send(withResultsUrl(job));
    },
  );

  app.get(
    '/v2/batch/:id',
    {
      config: { endpoint: 'batch_get' },
      schema: {
        operationId: 'getBatchJob',
        tags: ['batch'],
        summary: "Poll a batch job's status",
        params: JobIdParams,
        response: { 200: BatchJobSchema, 404: NOT_FOUND },
      },
    },
    async (request) => withResultsUrl(await runner().get(request.params.id, scopeOf(request))),
  );

  app.get(
    '/v2/batch',
    {
      config: { endpoint: 'batch_list' },
      schema: {
        operationId: 'listBatchJobs',
        tags: ['batch'],
        summary: "The account's batch jobs, newest first",
        querystring: ListQuery,
        response: { 200: PageSchema(BatchJobSchema) },
      },
    },
    async (request) => {
      const scope = scopeOf(request);
      const cursorScope = { scope: `batch_list:${scope.accountId}`, now: svc.now() };
      const cursor = request.query.cursor
        ? readInnerCursor(svc.secrets.readCursor(request.query.cursor, cursorScope))
        : null;
      const page = await runner().list({ cursor, limit: request.query.limit ?? 20, ...scope });
      return {
        data: page.data.map(withResultsUrl),
        next_cursor:
          page.next_cursor === null ? null : svc.secrets.signCursor({ c: page.next_cursor }, cursorScope),
        has_more: page.has_more,
      };
    },
  );

  app.get(
    '/v2/batch/:id/results',
    {
      config: { endpoint: 'batch_results' },
      schema: {
        operationId: 'getBatchResults',
        tags: ['batch'],
        summary: "A batch job's results in record order",
        description:
          'Cursor pages of results committed so far (`?format=json`, the default), or every result streamed as NDJSON (`?format=ndjson`, one result per line) or CSV (`?format=csv`, the result flattened to columns).',
        params: JobIdParams,
        querystring: ResultsQuery,
        response: {
          200: {
            content: {
              'application/json': { schema: PageSchema(BatchResultSchema) },
              'application/x-ndjson': { schema: Type.String({ description: 'One JSON result per line' }) },
              'text/csv': { schema: Type.String({ description: 'A header row, then one row per result' }) },
            },
          },
          404: NOT_FOUND,
        } as unknown as { 200: ReturnType<typeof PageSchema<typeof BatchResultSchema>> },
      },
    },
    async (request, reply) => {
      const scope = scopeOf(request);
      const { id } = request.params;
      const format = request.query.format ?? 'json';
      if (format !== 'json') {
        const stream = await runner().export(id, format, scope);
        const type = format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8';
        // Streamed as it is read from the store; the JSON response schema does not apply to it.
        return reply.type(type).send(stream as never);
      }
      const cursorScope = { scope: `batch_results:${scope.accountId}:${id}`, now: svc.now() };
      const cursor = request.query.cursor
        ? readInnerCursor(svc.secrets.readCursor(request.query.cursor, cursorScope))
        : null;
      const page = await runner().results(id, { cursor, limit: request.query.limit ?? 100, ...scope });
      return {
        data: page.data.map(resultView),
        next_cursor:
          page.next_cursor === null ? null : svc.secrets.signCursor({ c: page.next_cursor }, cursorScope),
        has_more: page.has_more,
      };
    },
  );

  app.post(
    '/v2/batch/:id/cancel',
    {
      config: { endpoint: 'batch_cancel' },
      schema: {
        operationId: 'cancelBatchJob',
        tags: ['batch'],
        summary: 'Cancel a queued or running batch job',
        description:
          'Unprocessed records are never started; results committed so far stay readable. A finished job is returned as it is. A job with a webhook_url gets a batch.cancelled event.',
        params: JobIdParams,
        response: { 200: BatchJobSchema, 404: NOT_FOUND },
      },
    },
    async (request) => withResultsUrl(await runner().cancel(request.params.id, scopeOf(request))),
  );

  app.get(
    '/v2/batch/:id/events',
    {
      config: { endpoint: 'batch_events' },
      schema: {
        operationId: 'listBatchJobEvents',
        tags: ['webhooks'],
        summary: "A batch job's webhook events with every delivery attempt",
        params: JobIdParams,
        response: { 200: PageSchema(EventDeliverySchema), 404: NOT_FOUND },
      },
    },
    async (request) => {
      const events = await runner().events(request.params.id, scopeOf(request));
      // A job has at most a few events: one page, always complete.
      return { data: events.map(eventView), next_cursor: null, has_more: false };
    },
  );

  app.post(
    '/v2/events/:id/resend',
    {
      config: { endpoint: 'event_resend' },
      schema: {
        operationId: 'resendEvent',
        tags: ['webhooks'],
        summary: 'Deliver one webhook event again now',
        description:
          "The same event (same id, so receivers deduplicate it), signed afresh with the account's current secrets, one more attempt made before this answers: 2xx makes it delivered, 410 gone; another failure leaves a finished event as it was and an event still retrying on its schedule.",
        params: EventIdParams,
        response: { 200: EventDeliverySchema, 404: NOT_FOUND },
      },
    },
    async (request) => {
      const live = svc.batch.runner;
      if (!live)
        throw new ServiceError('internal_error', 'this server delivers no webhooks (no batch runner)');
      return eventView(
        await live.resendEvent(request.params.id, scopeOf(request), { timeoutMs: attemptTimeoutMs }),
      );
    },
  );

  app.post(
    '/v2/webhooks/test',
    {
      config: { endpoint: 'webhooks_test' },
      schema: {
        operationId: 'sendTestWebhook',
        tags: ['webhooks'],
        summary: 'Send a signed test event to a URL',
        description:
          "POSTs `{ id, object: 'event', type: 'webhook.test', created, data: { object: { object: 'webhook_test', account_id } } }` signed with the account's webhook secrets in both formats (X-Service-Signature and the Standard Webhooks headers), once, and reports what the receiver answered. The SSRF guard applies: a private or reserved address is refused (400) unless allow-listed.",
        body: WebhookTestBody,
        response: { 200: WebhookTestResult },
      },
    },
    async (request) => {
      const auth = authOf(request);
      const { url } = request.body;
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        throw new ServiceError('invalid_request', `"url" is not a URL: ${JSON.stringify(url.slice(0, 100))}`);
      }
      if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
        throw new ServiceError('invalid_request', '"url" must be an http or https URL');
      }
      if (parsed.username || parsed.password)
        throw new ServiceError('invalid_request', '"url" must not contain credentials');
      if (url.length > MAX_WEBHOOK_URL_LENGTH) throw new ServiceError('invalid_request', '"url" is too long');
      const refused = await refusedWebhookTarget(url, isAllowedTarget);
      if (refused) throw new ServiceError('invalid_request', refused.replace('"webhook_url"', '"url"'));
      const secrets = await webhookSigningSecrets(svc, auth.account.id);
      if (secrets.length === 0) {
        throw new ServiceError(
          'invalid_request',
          'the account has no webhook signing secret; create one with POST /v2/account/webhook-secret/rotate',
        );
      }
      const now = svc.now();
      const event = {
        id: createId('evt', now),
        object: 'event' as const,
        type: 'webhook.test',
        created: Math.floor(now / 1000),
        data: { object: { object: 'webhook_test', account_id: auth.account.id } },
      };
      const result = await sendWebhookEvent(url, event, {
        secrets,
        isAllowedAddress: isAllowedTarget,
        timeoutMs: attemptTimeoutMs,
        now: svc.now,
      });
      return {
        event_id: event.id,
        url,
        delivered: result.status !== null && result.status >= 200 && result.status < 300,
        status: result.status,
        latency_ms: result.latencyMs,
        error: result.error,
      };
    },
  );
};

/** The store's cursor inside a signed one (the signature already proved it is ours). */
function readInnerCursor(payload: unknown): string {
  const inner = (payload as { c?: unknown } | null)?.c;
  if (typeof inner !== 'string')
    throw new ServiceError('invalid_request', 'the cursor is not valid; list again without a cursor');
  return inner;
}
