import { ServiceError } from '@svc/core';
import type { JobQuota } from '../store.js';

/** What a store counted for a quota check: the account's jobs of the new job's kind. */
export interface QuotaCounts {
  /** Jobs created from the quota's `dayStart` on. */
  jobsToday: number;
  /** Records not yet processed in queued and running jobs. */
  recordsInFlight: number;
}

const DAY_MS = 86_400_000;

/** Seconds a client waits for records in flight to finish: the spec's polling interval. */
export const IN_FLIGHT_RETRY_SECONDS = 30;

/**
 * Throws when a job of `total` records does not fit `quota` given what the store counted:
 * 429 `rate_limited` with the seconds until the next day (jobs per day) or
 * IN_FLIGHT_RETRY_SECONDS (records in flight), or 400 `invalid_request` for a job that is
 * larger than the records-in-flight limit itself and could never fit.
 */
export function checkJobQuota(
  quota: JobQuota,
  counts: QuotaCounts,
  job: { total: number; sandbox: boolean; now: number },
): void {
  const { jobsPerDay, recordsInFlight } = quota;
  const { total, now } = job;
  const kind = job.sandbox ? 'sandbox batch jobs' : 'batch jobs';
  if (recordsInFlight !== undefined && total > recordsInFlight) {
    throw new ServiceError(
      'invalid_request',
      `${kind} have at most ${recordsInFlight} records here; this one has ${total}`,
    );
  }
  if (jobsPerDay !== undefined && counts.jobsToday >= jobsPerDay) {
    const retryAfterSeconds = Math.max(1, Math.ceil((quota.dayStart + DAY_MS - now) / 1000));
    throw new ServiceError(
      'rate_limited',
      `this account may create ${jobsPerDay} ${kind} a day (UTC) and has created ${counts.jobsToday} today; retry in ${retryAfterSeconds} s`,
      { retryAfterSeconds },
    );
  }
  if (recordsInFlight !== undefined && counts.recordsInFlight + total > recordsInFlight) {
    throw new ServiceError(
      'rate_limited',
      `this account's ${kind} may have ${recordsInFlight} records waiting to be processed; ${counts.recordsInFlight} are and this job adds ${total}: retry when a job has finished`,
      { retryAfterSeconds: IN_FLIGHT_RETRY_SECONDS },
    );
  }
}
