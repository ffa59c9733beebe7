import type { BatchJob } from '@svc/core';
import type { JobRecord } from './store.js';

/** The API's job object (DESIGN §6) for a stored job: the owner, sandbox flag and idempotency data stay inside. */
export function toApiJob(job: JobRecord, resultsUrl?: (id: string) => string | null): BatchJob {
  const {
    idempotency_key: _key,
    request_hash: _hash,
    account_id: _account,
    sandbox: _sandbox,
    ...rest
  } = job;
  return { ...rest, object: 'batch_job', results_url: resultsUrl?.(job.id) ?? null };
}
