import type { Store as BatchStore } from '@svc/batch-runner';
import type { BatchJob } from '@svc/core';
import type { ControlPlaneStore } from './control-plane/store.js';
import { usageDay, usageMonth } from './plugins/month.js';

/** Options of {@link batchMissCredits}. */
export interface BatchMissCreditsOptions {
  /** Where the job's billing was recorded, and the account's plan is read. */
  controlPlane: ControlPlaneStore;
  /** The runner's store: the finished job's owner and sandbox flag (the API's job shows neither). */
  store: BatchStore;
  /** A credit that could not be applied (the store failed); the job itself is not affected. @default none */
  onError?: (error: Error, job: BatchJob) => void;
}

/**
 * The runner's `onJobFinished` that keeps batch billing consistent with the routes (DESIGN §7): a
 * job bills its records to `batch_create` at submit, since the allowance must be checked before
 * any work; when an `enrich_company` job ends (completed, failed or cancelled), its records
 * counted `no_match` are credited back, unless the account's plan has `bill_company_misses`.
 * Contact misses stay billed (the spec bills them), as do per-record errors. The credit goes to
 * the month and day the job was created in (where its submit was billed), under the job id as its
 * key, so a runner calling this twice for one job credits once. Test-key (sandbox) jobs and jobs
 * without an owner were never billed and get nothing. The plan read is the account's plan when the
 * job ends.
 */
export function batchMissCredits(options: BatchMissCreditsOptions): (job: BatchJob) => Promise<void> {
  const { controlPlane, store } = options;
  return async (job) => {
    if (job.type !== 'enrich_company') return;
    try {
      const misses = job.counts.no_match ?? 0;
      if (misses <= 0) return;
      const record = await store.getJob(job.id);
      if (!record || record.sandbox || record.account_id === null) return;
      const account = await controlPlane.getAccount(record.account_id);
      if (!account) return;
      const plan = await controlPlane.getPlan(account.plan_id);
      if (plan?.bill_company_misses) return;
      const createdAt = Date.parse(record.created_at);
      await controlPlane.creditUsage({
        accountId: account.id,
        key: job.id,
        endpoint: 'batch_create',
        month: usageMonth(createdAt),
        day: usageDay(createdAt),
        units: misses,
      });
    } catch (error) {
      // The runner calls this after the job's last commit: a throw would be taken for a chunk failure.
      options.onError?.(error instanceof Error ? error : new Error(String(error)), job);
    }
  };
}
