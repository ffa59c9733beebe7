import type { Store as BatchStore, JobRecord } from '@svc/batch-runner';
import { type BatchJob, isJobTypeId, isTerminalBatchStatus, JOB_TYPES, type JobTypeSpec } from '@svc/core';
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
 * Records of a finished job that are not billed, counted under its type's `creditedCounts`
 * (`JOB_TYPES`): an `enrich_company` job's `no_match` records (unless `billsCompanyMisses`: the
 * plan's `bill_company_misses`), a `verify_email` job's `dns_unavailable` records (left `unknown`
 * because the resolver was not trusted) and an enrich job's `all_adapters_failed` records (no
 * source reached): an answer that is not a verdict costs nothing, DESIGN §12. Counted before the
 * plan is read with `billsCompanyMisses` false: 0 means no credit at all.
 */
function unbilledRecords(job: Pick<BatchJob, 'type' | 'counts'>, billsCompanyMisses = false): number {
  const spec: JobTypeSpec | undefined = isJobTypeId(job.type) ? JOB_TYPES[job.type] : undefined;
  let records = 0;
  for (const key of spec?.creditedCounts ?? []) {
    if (billsCompanyMisses && job.type === 'enrich_company' && key === 'no_match') continue;
    records += job.counts[key] ?? 0;
  }
  return records;
}

/**
 * The runner's `onJobFinished` that keeps batch billing consistent with the routes (DESIGN §7): a
 * job bills its records to `batch_create` at submit, since the allowance must be checked before
 * any work; when an `enrich_company` job ends (completed, failed or cancelled), its records
 * counted `no_match` are credited back, unless the account's plan has `bill_company_misses`;
 * when a `verify_email` job ends, its records counted `dns_unavailable` are credited back, and
 * when an enrich job ends, its records counted `all_adapters_failed` (no source reached).
 * Contact misses stay billed (the spec bills them), as do per-record errors. The credit goes to
 * the month and day the job was created in (where its submit was billed), under the job id as its
 * key, so a runner calling this twice for one job credits once. Test-key (sandbox) jobs and jobs
 * without an owner were never billed and get nothing. The plan read is the account's plan when the
 * job ends. `sweepBatchMissCredits` applies what a killed worker left undone.
 */
export function batchMissCredits(options: BatchMissCreditsOptions): (job: BatchJob) => Promise<void> {
  const credit = creditJob(options);
  return async (job) => {
    if (unbilledRecords(job) <= 0) return;
    try {
      const record = await options.store.getJob(job.id);
      if (record) await credit(record);
    } catch (error) {
      // The runner calls this after the job's last commit: a throw would be taken for a chunk failure.
      options.onError?.(error instanceof Error ? error : new Error(String(error)), job);
    }
  };
}

/** Options of {@link sweepBatchMissCredits}. */
export interface SweepBatchMissCreditsOptions extends Omit<BatchMissCreditsOptions, 'onError'> {
  /** Clock in ms: jobs created in this month and the one before are looked at. @default Date.now */
  now?: () => number;
  /** Jobs looked at, at most, newest first. @default 20000 */
  maxJobs?: number;
}

/**
 * Applies the credits a runner may have missed: a worker killed between a job's last commit and
 * its `onJobFinished` leaves the job finished and its misses billed. `svc serve` runs this once
 * at start in every process that runs batch work. It reads the jobs newest first, back to the
 * start of the previous month (older invoices are left as they are) or `maxJobs`, and credits each
 * finished job with unbilled records as `batchMissCredits` does; a job credited before is
 * not credited again (the job id is the credit's key). Returns how many credits it applied.
 */
export async function sweepBatchMissCredits(options: SweepBatchMissCreditsOptions): Promise<number> {
  const credit = creditJob(options);
  const now = (options.now ?? Date.now)();
  const maxJobs = options.maxJobs ?? 20_000;
  const month = new Date(now);
  const since = Date.UTC(month.getUTCFullYear(), month.getUTCMonth() - 1, 1);
  let cursor: string | null = null;
  let seen = 0;
  let applied = 0;
  do {
    const page = await options.store.listJobs({ cursor, limit: 100 });
    for (const job of page.data) {
      if (Date.parse(job.created_at) < since || ++seen > maxJobs) return applied;
      if (await credit(job)) applied++;
    }
    cursor = page.has_more ? page.next_cursor : null;
  } while (cursor !== null);
  return applied;
}

// Credits one stored finished live job's unbilled records (company misses on a plan that does not
// bill them, records the resolver could not verify, records no enrichment source was reached
// for); true when a credit was applied now.
function creditJob({ controlPlane }: Pick<BatchMissCreditsOptions, 'controlPlane'>) {
  return async (job: JobRecord): Promise<boolean> => {
    const misses = unbilledRecords(job);
    if (misses <= 0 || !isTerminalBatchStatus(job.status)) return false;
    if (job.sandbox || job.account_id === null) return false;
    const account = await controlPlane.getAccount(job.account_id);
    if (!account) return false;
    const plan = await controlPlane.getPlan(account.plan_id);
    const units = unbilledRecords(job, plan?.bill_company_misses === true);
    if (units <= 0) return false;
    const createdAt = Date.parse(job.created_at);
    return controlPlane.creditUsage({
      accountId: account.id,
      key: job.id,
      endpoint: 'batch_create',
      month: usageMonth(createdAt),
      day: usageDay(createdAt),
      units,
    });
  };
}
