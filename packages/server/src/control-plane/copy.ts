import { usageMonth } from '../plugins/month.js';
import { type ControlPlaneStore, MAX_USAGE_INCREMENTS, type UsageIncrement } from './store.js';

/** Options of copyControlPlane. */
export interface CopyControlPlaneOptions {
  /** The store copied from (the SQLite file of a single-process server). */
  from: ControlPlaneStore;
  /** The store copied into (a deployment's PostgreSQL); it must have no account yet. */
  to: ControlPlaneStore;
  /** Which webhook secrets are still active, and the last usage month copied. @default Date.now */
  now?: () => number;
}

/** What was copied. */
export interface CopyControlPlaneReport {
  plans: number;
  accounts: number;
  keys: number;
  webhookSecrets: number;
  /** Usage lines written (by day where the source has days, else by month). */
  usageLines: number;
}

/**
 * Copies a control plane into another store (docs/deployment.md, "Moving from the SQLite
 * default"): plans, accounts, every key as its hash (revoked and expiring ones too, so the keys
 * people hold keep working and their history stays), the active webhook signing secrets as sealed
 * (the target's processes need the same server key to open them) and the usage of every month
 * since each account was created. Tokens are not copied: they live 24 h at most and are minted
 * again. Refuses a target that already has accounts, so a second run cannot double the usage.
 */
export async function copyControlPlane(options: CopyControlPlaneOptions): Promise<CopyControlPlaneReport> {
  const { from, to } = options;
  const now = (options.now ?? Date.now)();
  if ((await to.listAccounts()).length > 0)
    throw new Error(
      'the target control plane already has accounts: copy into an empty database (a second copy would count the usage twice)',
    );
  const report: CopyControlPlaneReport = { plans: 0, accounts: 0, keys: 0, webhookSecrets: 0, usageLines: 0 };
  for (const plan of await from.listPlans()) {
    await to.upsertPlan(plan);
    report.plans++;
  }
  for (const account of await from.listAccounts()) {
    await to.createAccount(account);
    report.accounts++;
    // Oldest first, so a rotated key's predecessor exists before the key that names it.
    const keys = (await from.listKeys(account.id)).sort((a, b) => a.created_at - b.created_at);
    for (const key of keys) {
      await to.createKey(key);
      report.keys++;
    }
    for (const secret of await from.activeWebhookSecrets(account.id, now)) {
      await to.addWebhookSecret(secret);
      report.webhookSecrets++;
    }
    const lines: UsageIncrement[] = [];
    for (const month of monthsBetween(usageMonth(account.created_at), usageMonth(now))) {
      const days = await from.usageByDay(account.id, month);
      // Usage recorded before days were kept has only its month: the month's total minus its days.
      const rest = new Map((await from.usage(account.id, month)).map((line) => [line.endpoint, { ...line }]));
      for (const day of days) {
        lines.push({
          accountId: account.id,
          endpoint: day.endpoint,
          month,
          day: day.day,
          calls: day.calls,
          units: day.units,
        });
        const left = rest.get(day.endpoint);
        if (left) {
          left.calls -= day.calls;
          left.units -= day.units;
        }
      }
      for (const left of rest.values())
        if (left.calls > 0)
          lines.push({
            accountId: account.id,
            endpoint: left.endpoint,
            month,
            calls: left.calls,
            units: left.units,
          });
    }
    for (let start = 0; start < lines.length; start += MAX_USAGE_INCREMENTS) {
      const batch = lines.slice(start, start + MAX_USAGE_INCREMENTS);
      await to.addUsage(batch);
      report.usageLines += batch.length;
    }
  }
  return report;
}

/** `2024-11` … `2025-02`, inclusive. */
function monthsBetween(first: string, last: string): string[] {
  const months: string[] = [];
  let [year, month] = first.split('-').map(Number) as [number, number];
  for (let guard = 0; guard < 1200; guard++) {
    const text = `${year}-${String(month).padStart(2, '0')}`;
    months.push(text);
    if (text >= last) break;
    month++;
    if (month > 12) {
      month = 1;
      year++;
    }
  }
  return months;
}
