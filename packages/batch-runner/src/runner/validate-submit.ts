import { type BatchJobType, MAX_BATCH_RECORDS, ServiceError } from '@svc/core';

/**
 * Most characters in one record. An email address has at most 254 and an IP address 45, so a
 * longer record is not one; without a bound, 50,000 records could be gigabytes in the store.
 */
export const MAX_RECORD_LENGTH = 1024;

/** Most characters in a webhook URL (what browsers and proxies reliably carry). */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** A batch submission (the body of POST /batch plus the Idempotency-Key header). */
export interface SubmitRequest {
  type: string;
  records: unknown;
  webhook_url?: string | null;
  idempotency_key?: string | null;
  /** The owning account (a server's `acct_…`). @default null: a job without an owner */
  account_id?: string | null;
  /** A sandbox job: processors get `sandbox: true` (a server's test keys). @default false */
  sandbox?: boolean;
  /**
   * Limits on the account's jobs of this kind (sandbox or not), checked atomically with the
   * insert: jobs created per UTC day, this one included, and records not yet processed in its
   * queued and running jobs, this one's included. Past either: `rate_limited` with
   * `retryAfterSeconds` (until the next UTC day, or 30 s). A server gives them for test keys.
   * @default no limits
   */
  quota?: { jobsPerDay?: number; recordsInFlight?: number };
}

/** Checks a submission; every problem is an invalid_request with a message naming the field. */
export function validateSubmit(
  request: SubmitRequest,
  types: ReadonlySet<string>,
): {
  type: BatchJobType;
  records: string[];
  webhook_url: string | null;
  idempotency_key: string | null;
} {
  const fail = (message: string) => new ServiceError('invalid_request', message);
  if (typeof request?.type !== 'string' || !types.has(request.type)) {
    throw fail(`"type" must be one of ${[...types].join(', ')}, got ${JSON.stringify(request?.type)}`);
  }
  if (!Array.isArray(request.records)) throw fail('"records" must be an array of strings');
  if (request.records.length === 0) throw fail('"records" is empty: a job needs at least one record');
  if (request.records.length > MAX_BATCH_RECORDS) {
    throw fail(`"records" has ${request.records.length} entries; at most ${MAX_BATCH_RECORDS} per job`);
  }
  const wrong = request.records.findIndex((record) => typeof record !== 'string');
  if (wrong >= 0) throw fail(`"records[${wrong}]" must be a string`);
  const long = (request.records as string[]).findIndex((record) => record.length > MAX_RECORD_LENGTH);
  if (long >= 0) {
    const length = (request.records[long] as string).length;
    throw fail(`"records[${long}]" has ${length} characters; a record has at most ${MAX_RECORD_LENGTH}`);
  }
  let webhook: string | null = null;
  if (request.webhook_url !== undefined && request.webhook_url !== null) {
    const text = String(request.webhook_url);
    if (text.length > MAX_WEBHOOK_URL_LENGTH)
      throw fail(`"webhook_url" has ${text.length} characters; at most ${MAX_WEBHOOK_URL_LENGTH}`);
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw fail(`"webhook_url" is not a URL: ${JSON.stringify(request.webhook_url)}`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      throw fail('"webhook_url" must be an http or https URL');
    if (url.username || url.password) throw fail('"webhook_url" must not contain credentials');
    webhook = url.toString();
  }
  const account = request.account_id ?? null;
  if (account !== null && (typeof account !== 'string' || account.length === 0))
    throw new TypeError('account_id must be a non-empty string or null');
  const key = request.idempotency_key ?? null;
  if (key !== null && (typeof key !== 'string' || key.length === 0 || key.length > 255)) {
    throw fail('the idempotency key must be 1..255 characters');
  }
  return {
    type: request.type as BatchJobType,
    records: request.records as string[],
    webhook_url: webhook,
    idempotency_key: key,
  };
}
