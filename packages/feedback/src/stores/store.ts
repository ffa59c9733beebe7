import type { FeedbackKind } from '../event.js';
import type { PatternCount } from '../pattern.js';
import type { AddressSummary, RecordedFeedbackEvent } from '../summary.js';

/** Whose events a read sees: one account's, or every account's (the operator's shared setting). */
export type FeedbackScope = { account: string } | 'shared';

/** Counts of one provider's events by kind. */
export interface ProviderEventCounts {
  provider: string;
  counts: Record<FeedbackKind, number>;
}

/** One domain's addresses by outcome, for the bounce-rate table. */
export interface DomainBounceRate {
  domain: string;
  delivered: number;
  bounced: number;
  /** `bounced / (delivered + bounced)`, null when both are 0. */
  bounce_rate: number | null;
}

/** What `GET /v2/feedback/stats` shows. */
export interface FeedbackStats {
  since: string;
  events: number;
  providers: ProviderEventCounts[];
  /** Domains with the most decided addresses first, at most `limit`. */
  domains: DomainBounceRate[];
  /** Verdicts changed by history since `since`. */
  verdicts: { upgraded: number; downgraded: number };
}

/**
 * Where delivery feedback is kept. Every backend (memory, SQLite, PostgreSQL) passes the same
 * conformance suite (`describeFeedbackStore` in `src/testing`).
 */
export interface FeedbackStore {
  /**
   * Records events for an account; an event whose `(provider, eventId)` the account already has
   * is skipped (provider retries and replays are harmless).
   */
  record(
    account: string,
    events: readonly RecordedFeedbackEvent[],
  ): Promise<{ stored: number; duplicates: number }>;
  /** The folded history of one address, or null when nothing is recorded. */
  summary(scope: FeedbackScope, address: string): Promise<AddressSummary | null>;
  /**
   * The folded histories of many addresses (at most `MAX_EVENTS_PER_RECORD`) in one read: a bulk
   * verification asks once, not once per address. Addresses with nothing recorded are absent.
   */
  summaries(scope: FeedbackScope, addresses: readonly string[]): Promise<Map<string, AddressSummary>>;
  /** Addresses at a domain by local-part pattern and outcome. */
  patterns(scope: FeedbackScope, domain: string): Promise<PatternCount[]>;
  /** Notes that history changed a verdict (for the statistics). */
  noteVerdictChange(account: string, change: 'upgraded' | 'downgraded', at: string): Promise<void>;
  stats(account: string, since: string, limit?: number): Promise<FeedbackStats>;
  /**
   * Keeps an account's credentials for one provider (opaque text: a server seals them with its
   * key before they come here), replacing earlier ones.
   */
  setProvider(account: string, provider: string, sealed: string, at: string): Promise<void>;
  /** The account's sealed credentials for a provider, or null when it configured none. */
  providerCredentials(account: string, provider: string): Promise<string | null>;
  /** The providers an account configured, by id. */
  providers(account: string): Promise<{ provider: string; configuredAt: string }[]>;
  /** Forgets an account's credentials for a provider; false when there were none. */
  removeProvider(account: string, provider: string): Promise<boolean>;
  /** Removes every event and summary of an address for an account; returns the events removed. */
  erase(account: string, address: string): Promise<number>;
  /** Removes an address's events and summaries in every account (an operator's erasure); returns the events removed. */
  eraseEverywhere(address: string): Promise<number>;
  /** Removes events (and summaries whose last event is) older than `before`; returns the events removed. */
  prune(before: string): Promise<number>;
  close(): Promise<void>;
}

/** The most events one `record` call takes. */
export const MAX_EVENTS_PER_RECORD = 10_000;

export function checkRecordSize(events: readonly unknown[], what = 'record takes', items = 'events'): void {
  if (events.length > MAX_EVENTS_PER_RECORD) {
    throw new RangeError(`${what} at most ${MAX_EVENTS_PER_RECORD} ${items} at once, got ${events.length}`);
  }
}

export function emptyKindCounts(): Record<FeedbackKind, number> {
  return { delivered: 0, hard_bounce: 0, soft_bounce: 0, complaint: 0, unsubscribe: 0 };
}

export function bounceRate(delivered: number, bounced: number): number | null {
  const total = delivered + bounced;
  return total === 0 ? null : Math.round((bounced / total) * 1000) / 1000;
}

/**
 * The statistics from what a backend counted since `since`: events by provider and kind (providers
 * listed in name order), decided addresses by domain (already ranked, most first, and cut to the
 * limit), and verdict changes. SQL drivers may hand counts over as strings or bigints.
 */
export function feedbackStats(
  since: string,
  kinds: Iterable<{ provider: string; kind: FeedbackKind; n: number }>,
  domains: Iterable<{ domain: string; delivered: number; bounced: number }>,
  verdicts: Iterable<{ change: 'upgraded' | 'downgraded'; n: number }>,
): FeedbackStats {
  const byProvider = new Map<string, Record<FeedbackKind, number>>();
  let events = 0;
  for (const { provider, kind, n } of kinds) {
    const counts = byProvider.get(provider) ?? emptyKindCounts();
    counts[kind] += Number(n);
    events += Number(n);
    byProvider.set(provider, counts);
  }
  const providers = [...byProvider]
    .map(([provider, counts]) => ({ provider, counts }))
    .sort((a, b) => a.provider.localeCompare(b.provider));
  const stats: FeedbackStats = {
    since,
    events,
    providers,
    domains: [],
    verdicts: { upgraded: 0, downgraded: 0 },
  };
  for (const row of domains) {
    const delivered = Number(row.delivered);
    const bounced = Number(row.bounced);
    stats.domains.push({
      domain: row.domain,
      delivered,
      bounced,
      bounce_rate: bounceRate(delivered, bounced),
    });
  }
  for (const { change, n } of verdicts) stats.verdicts[change] += Number(n);
  return stats;
}
