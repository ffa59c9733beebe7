import { MAX_WEBHOOK_URL_LENGTH } from '@svc/batch-runner';
import { BatchJobTypeSchema, Nullable, TimestampSchema } from '@svc/core';
import { type Static, Type } from 'typebox';

/** `{id}` of the job routes; any string (an unknown or malformed id is 404 `not_found`, not 400). */
export const JobIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });
/** `{id}` of an event. */
export const EventIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });

export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description:
        'Retrying with the same key returns the first job instead of creating another (per account)',
    }),
  ),
});

/** The query of POST /v2/batch: what an uploaded list (text/csv, text/plain) cannot say in its body. */
export const SubmitQuery = Type.Object({
  type: Type.Optional(BatchJobTypeSchema),
  column: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'text/csv: the header of the column holding the records',
    }),
  ),
  webhook_url: Type.Optional(Type.String({ maxLength: MAX_WEBHOOK_URL_LENGTH })),
});
export type SubmitQuery = Static<typeof SubmitQuery>;

const Cursor = Type.String({
  minLength: 1,
  maxLength: 4096,
  description: 'next_cursor of the previous page',
});

export const ListQuery = Type.Object({
  cursor: Type.Optional(Cursor),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Jobs per page (default 20)' })),
});

export const RESULT_FORMATS = ['json', 'ndjson', 'csv'] as const;
export const ResultsQuery = Type.Object({
  cursor: Type.Optional(Cursor),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 1000, description: 'Results per page (default 100)' }),
  ),
  format: Type.Optional(
    Type.Enum([...RESULT_FORMATS], {
      description: 'json: one page; ndjson or csv: every result, streamed (cursor and limit ignored)',
    }),
  ),
});

const ErrorObject = Type.Object({ code: Type.String(), message: Type.String() });

/** One record's result, in record order. */
export const BatchResultSchema = Type.Object(
  {
    index: Type.Integer({ minimum: 0, description: 'Position of the record in the job' }),
    input: Type.String(),
    ok: Type.Boolean(),
    result: Type.Unknown({
      description: "The job type's result (as the single-call endpoint returns), null on error",
    }),
    error: Nullable(ErrorObject),
  },
  { description: 'The result of one record of a batch job' },
);

export const DeliveryAttemptSchema = Type.Object({
  at: TimestampSchema,
  status: Nullable(
    Type.Integer({ description: "The receiver's HTTP status; null when no response arrived" }),
  ),
  latency_ms: Type.Integer({ minimum: 0 }),
  error: Nullable(
    Type.String({ description: 'Why no response arrived (timeout, refused, SSRF guard, no secret…)' }),
  ),
  trigger: Type.Enum(['schedule', 'resend']),
});

/** A webhook event of a job and every attempt to deliver it. */
export const EventDeliverySchema = Type.Object(
  {
    id: Type.String({
      pattern: '^evt_',
      description: 'The event id: the envelope id and the webhook-id header',
    }),
    type: Type.String({ description: 'batch.completed, batch.failed or batch.cancelled' }),
    job_id: Type.String(),
    url: Type.String(),
    created_at: TimestampSchema,
    state: Type.Enum(['pending', 'delivered', 'gone', 'failed'], {
      description:
        'pending: waiting for its next attempt; gone: the receiver answered 410; failed: 24 h of retries ended',
    }),
    next_attempt_at: Nullable(TimestampSchema),
    attempts: Type.Array(DeliveryAttemptSchema),
  },
  { description: 'A webhook event with its delivery attempts, oldest first' },
);

export const WebhookTestBody = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: MAX_WEBHOOK_URL_LENGTH,
      description: 'Where to send the test event',
    }),
  },
  { additionalProperties: false },
);

export const WebhookTestResult = Type.Object({
  event_id: Type.String({ pattern: '^evt_' }),
  url: Type.String(),
  delivered: Type.Boolean({ description: 'The receiver answered 2xx' }),
  status: Nullable(Type.Integer()),
  latency_ms: Type.Integer({ minimum: 0 }),
  error: Nullable(Type.String()),
});
