import type { BatchJob } from '@svc/core';
import type { Delivery, DeliveryAttempt, DeliveryState, EventView, JobRecord } from '../../store.js';

/** The job columns a JobRecord is read from. */
export const JOB_COLUMNS = `id, account_id, sandbox, type, status, total, processed, failed, counts, created_at,
  started_at, completed_at, webhook_url, idempotency_key, request_hash, error`;

/** A jobs row as pg returns it (timestamptz as Date, json parsed). */
export interface JobRow {
  id: string;
  account_id: string | null;
  sandbox: boolean;
  type: JobRecord['type'];
  status: JobRecord['status'];
  total: number;
  processed: number;
  failed: number;
  counts: BatchJob['counts'];
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  webhook_url: string | null;
  idempotency_key: string | null;
  request_hash: string | null;
  error: JobRecord['error'];
}

export function toJob(row: JobRow): JobRecord {
  return {
    id: row.id,
    account_id: row.account_id,
    sandbox: row.sandbox,
    type: row.type,
    status: row.status,
    total: row.total,
    processed: row.processed,
    failed: row.failed,
    counts: row.counts,
    created_at: row.created_at.toISOString(),
    started_at: row.started_at?.toISOString() ?? null,
    completed_at: row.completed_at?.toISOString() ?? null,
    webhook_url: row.webhook_url,
    idempotency_key: row.idempotency_key,
    request_hash: row.request_hash,
    error: row.error,
  };
}

/** An outbox row with its job's account. BIGINT columns arrive as strings (pg keeps int8 exact). */
export interface OutboxRow {
  event_id: string;
  job_id: string;
  type: Delivery['type'];
  url: string;
  created: string;
  state: DeliveryState;
  next_attempt_at: string;
  first_attempt_at: string | null;
  owner: string | null;
  lease_until: string;
  attempt_count: number;
  account_id: string | null;
}

/** The event's own fields, read the same way into a delivery and into a view. */
function eventOf(row: OutboxRow): Pick<EventView, 'eventId' | 'jobId' | 'type' | 'url' | 'created'> {
  return {
    eventId: row.event_id,
    jobId: row.job_id,
    type: row.type,
    url: row.url,
    created: Number(row.created),
  };
}

export function toDelivery(row: OutboxRow, owner: string): Delivery {
  return {
    ...eventOf(row),
    firstAttemptAt: row.first_attempt_at === null ? null : Number(row.first_attempt_at),
    attempts: row.attempt_count,
    owner,
    accountId: row.account_id,
  };
}

/** The attempts of an event as aggregated by ATTEMPTS_OF (json_agg: numbers arrive as numbers). */
type AttemptJson = Omit<DeliveryAttempt, 'trigger' | 'inProgress'> & {
  trigger: DeliveryAttempt['trigger'] | null;
  inProgress: boolean;
};

/** A subquery: the attempts of outbox row `o`, oldest first, as a JSON array. */
export const attemptsOf = (s: string) =>
  `coalesce((SELECT json_agg(json_build_object('at', a.at, 'status', a.status, 'latencyMs', a.latency_ms,
     'error', a.error, 'trigger', a.trigger, 'inProgress', a.in_progress) ORDER BY a.seq) FROM ${s}.delivery_attempts a
     WHERE a.event_id = o.event_id), '[]')`;

/** An outbox row with its attempts (ATTEMPTS_OF). */
export type EventRow = OutboxRow & { attempts: AttemptJson[] };

export function toView(row: EventRow): EventView {
  return {
    ...eventOf(row),
    state: row.state,
    nextAttemptAt: row.state === 'pending' ? Number(row.next_attempt_at) : null,
    // The trigger and the in-progress mark only when set, as the other stores keep them.
    attempts: row.attempts.map(({ trigger, inProgress, ...attempt }) => ({
      ...attempt,
      ...(trigger && { trigger }),
      ...(inProgress && { inProgress: true as const }),
    })),
  };
}
