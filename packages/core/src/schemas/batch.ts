import { type Static, Type } from 'typebox';
import { JOB_TYPE_IDS } from '../job-types.js';
import { Nullable, TimestampSchema } from './common.js';

/** The job types (DESIGN §6), in the order of `JOB_TYPES`, where each is described. */
export const BatchJobTypeSchema = Type.Enum([...JOB_TYPE_IDS]);
/** Job types (DESIGN §6). */
export type BatchJobType = Static<typeof BatchJobTypeSchema>;

/** Job statuses in lifecycle order. */
export const BATCH_JOB_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;

export const BatchJobStatusSchema = Type.Enum([...BATCH_JOB_STATUSES], {
  description: 'queued → running → completed | failed | cancelled',
});
/** Job lifecycle: queued → running → completed | failed | cancelled. */
export type BatchJobStatus = Static<typeof BatchJobStatusSchema>;

/** True for the states a job never leaves. */
export function isTerminalBatchStatus(status: BatchJobStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/** Largest number of records in one job (spec §8). */
export const MAX_BATCH_RECORDS = 50_000;

/** The body of POST /batch (spec §2.5). */
export const BatchJobRequestSchema = Type.Object(
  {
    type: BatchJobTypeSchema,
    records: Type.Array(Type.String(), { minItems: 1, maxItems: MAX_BATCH_RECORDS }),
    webhook_url: Type.Optional(
      Type.String({ description: 'Receives the signed completion webhook (an http or https URL)' }),
    ),
  },
  { additionalProperties: false },
);
export type BatchJobRequest = Static<typeof BatchJobRequestSchema>;

/** Per-outcome counters; for verify_email the keys are the verification states. */
export const BatchCountsSchema = Type.Record(Type.String(), Type.Integer({ minimum: 0 }));
export type BatchCounts = Static<typeof BatchCountsSchema>;

/** A batch job as polled (DESIGN §6). Timestamps are ISO 8601 UTC. */
export const BatchJobSchema = Type.Object(
  {
    id: Type.String({ pattern: '^batch_' }),
    object: Type.Literal('batch_job'),
    type: BatchJobTypeSchema,
    status: BatchJobStatusSchema,
    total: Type.Integer({ minimum: 0 }),
    processed: Type.Integer({ minimum: 0 }),
    failed: Type.Integer({ minimum: 0 }),
    counts: BatchCountsSchema,
    created_at: TimestampSchema,
    started_at: Nullable(TimestampSchema),
    completed_at: Nullable(TimestampSchema),
    webhook_url: Nullable(Type.String()),
    results_url: Nullable(Type.String()),
    error: Nullable(Type.Object({ code: Type.String(), message: Type.String() })),
  },
  { description: 'A batch job (DESIGN §6)' },
);
export type BatchJob = Static<typeof BatchJobSchema>;

/** Webhook event types (DESIGN §6). */
export const WEBHOOK_EVENT_TYPES = ['batch.completed', 'batch.failed', 'batch.cancelled'] as const;

export const WebhookEventTypeSchema = Type.Enum([...WEBHOOK_EVENT_TYPES]);
export type WebhookEventType = Static<typeof WebhookEventTypeSchema>;

/** The webhook envelope (DESIGN §6) around a batch job. `created` is unix seconds. */
export const WebhookEventSchema = Type.Object(
  {
    id: Type.String({ pattern: '^evt_' }),
    object: Type.Literal('event'),
    type: WebhookEventTypeSchema,
    created: Type.Integer({ description: 'Unix seconds' }),
    data: Type.Object({ object: BatchJobSchema }),
  },
  { description: 'The body of a webhook delivery (DESIGN §6)' },
);

/**
 * The webhook envelope (DESIGN §6). Generic over the object it carries, so written out; a type
 * test checks `WebhookEvent` equals `Static<typeof WebhookEventSchema>`.
 */
export interface WebhookEvent<T = BatchJob> {
  /** `evt_…` */
  id: string;
  object: 'event';
  type: WebhookEventType;
  created: number;
  data: { object: T };
}
