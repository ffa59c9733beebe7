import { join } from 'node:path';
import type { EmailVerificationResult, SqliteDriver } from '@svc/core';
import { createGuardedFetch } from '@svc/enricher';
import {
  createDeliveryHistory,
  createPostgresFeedbackStore,
  createSqliteFeedbackStore,
  type DeliveryHistory,
  type FeedbackStore,
} from '@svc/feedback';

/** The feedback SQLite file in the data directory (`svc feedback import` writes the same file). */
export const FEEDBACK_DB_FILE = 'feedback.db';

/** What the feedback routes and the verify routes share (`ServerContext.feedback`). */
export interface ServerFeedback {
  store: FeedbackStore;
  history: DeliveryHistory;
  /** Fetches an SNS signing certificate (URL already checked to be Amazon's) through the SSRF guard; cached. */
  fetchCertificate(url: string): Promise<string>;
  /** Visits an SNS subscription's SubscribeURL (already checked to be Amazon's) to confirm it. */
  confirmSubscription(url: string): Promise<void>;
  /** Events older than this many days are deleted by the daily sweep. */
  retentionDays: number;
}

export interface ServeFeedbackOptions {
  dataDir: string;
  databaseUrl: string | null;
  /** Let every account's verifications read every account's events. @default false */
  shareAcrossAccounts?: boolean;
  retentionDays?: number;
  driver?: SqliteDriver;
}

/** Most certificates kept; SNS rotates its certificate rarely and uses one per region. */
const MAX_CACHED_TEXTS = 16;

/**
 * Opens the feedback store beside the server's other stores (PostgreSQL with a database URL, else
 * `<dataDir>/feedback.db`) and the history that the verify routes apply.
 */
export async function openServeFeedback(
  options: ServeFeedbackOptions,
): Promise<ServerFeedback & { close(): Promise<void> }> {
  const store = options.databaseUrl
    ? await createPostgresFeedbackStore({ connectionString: options.databaseUrl })
    : await createSqliteFeedbackStore({
        path: join(options.dataDir, FEEDBACK_DB_FILE),
        ...(options.driver ? { driver: options.driver } : {}),
      });
  const guarded = createGuardedFetch({ maxBytes: 64 * 1024, timeoutMs: 5000, maxRedirects: 0 });
  return {
    store,
    history: createDeliveryHistory({ store, shared: options.shareAcrossAccounts ?? false }),
    fetchCertificate: cachedTextFetcher(guarded),
    confirmSubscription: async (url) => {
      const response = await guarded(url);
      if (!response.ok) throw new Error(`confirming the SNS subscription: HTTP ${response.status}`);
    },
    retentionDays: options.retentionDays ?? 730,
    close: () => store.close(),
  };
}

const DAY_MS = 86_400_000;

/**
 * Deletes events older than the retention now and then once a day (the timer does not keep the
 * process alive); returns the function that stops it.
 */
export function sweepFeedbackRetention(
  feedback: Pick<ServerFeedback, 'store' | 'retentionDays'>,
  now: () => number,
  onError: (error: Error) => void,
): () => void {
  const sweep = () => {
    const before = new Date(now() - feedback.retentionDays * DAY_MS).toISOString();
    feedback.store.prune(before).catch(onError);
  };
  sweep();
  const timer = setInterval(sweep, DAY_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * The batch verify processor's `refine`: a live job's results get its account's history (a job
 * without an account gets none), and lose a `history` that is null, as the API's results do.
 */
export function historyForBatch(
  feedback: ServerFeedback,
): <T extends { state: string; reasons?: readonly string[] }>(
  accountId: string | null,
  results: T[],
) => Promise<T[]> {
  return async (accountId, results) => {
    if (accountId === null) return results;
    const served = await servedWithHistory(
      feedback,
      accountId,
      results as unknown as EmailVerificationResult[],
    );
    return served as unknown as typeof results;
  };
}

/**
 * Results with the account's delivery history, as the API serves them: a result with nothing
 * recorded carries no `history` at all (the verify routes and batch jobs alike).
 */
export async function servedWithHistory<T extends EmailVerificationResult>(
  feedback: ServerFeedback,
  accountId: string,
  results: readonly T[],
): Promise<T[]> {
  const applied = await feedback.history.applyMany(accountId, results);
  return applied.map(({ history, ...result }) => (history === null ? result : { ...result, history })) as T[];
}

/** Fetches and remembers small texts by URL (SNS certificates are fetched once per process). */
export function cachedTextFetcher(fetchImpl: typeof fetch): (url: string) => Promise<string> {
  const cache = new Map<string, string>();
  return async (url) => {
    const cached = cache.get(url);
    if (cached !== undefined) return cached;
    const response = await fetchImpl(url);
    if (!response.ok) throw new Error(`GET ${url}: HTTP ${response.status}`);
    const text = await response.text();
    if (cache.size >= MAX_CACHED_TEXTS) cache.delete(cache.keys().next().value as string);
    cache.set(url, text);
    return text;
  };
}
