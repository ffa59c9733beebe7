import type { VerificationState } from './email.js';

/** Job types (DESIGN §6). */
export type BatchJobType = 'verify_email' | 'geo_ip' | 'enrich_contact' | 'enrich_company';

/** The job types in a stable order. */
export const BATCH_JOB_TYPES: readonly BatchJobType[] = [
  'verify_email',
  'geo_ip',
  'enrich_contact',
  'enrich_company',
];

/** Job lifecycle: queued → running → completed | failed | cancelled. */
export type BatchJobStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

/** True for the states a job never leaves. */
export function isTerminalBatchStatus(status: BatchJobStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/** Largest number of records in one job (spec §8). */
export const MAX_BATCH_RECORDS = 50_000;

/** The body of POST /batch (spec §2.5). */
export interface BatchJobRequest {
  type: BatchJobType;
  records: string[];
  webhook_url?: string;
}

/** Per-outcome counters; for verify_email the keys are the verification states. */
export type BatchCounts = Partial<Record<VerificationState | string, number>>;

/** A batch job as polled (DESIGN §6). Timestamps are ISO 8601 UTC. */
export interface BatchJob {
  /** `batch_…` */
  id: string;
  object: 'batch_job';
  type: BatchJobType;
  status: BatchJobStatus;
  total: number;
  processed: number;
  failed: number;
  counts: BatchCounts;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  webhook_url: string | null;
  results_url: string | null;
  error: { code: string; message: string } | null;
}

/** Webhook event types (DESIGN §6). */
export type WebhookEventType = 'batch.completed' | 'batch.failed' | 'batch.cancelled';

/** The webhook envelope (DESIGN §6). `created` is unix seconds. */
export interface WebhookEvent<T = BatchJob> {
  /** `evt_…` */
  id: string;
  object: 'event';
  type: WebhookEventType;
  created: number;
  data: { object: T };
}
