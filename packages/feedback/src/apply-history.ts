import type { EmailVerificationResult, VerificationState } from '@svc/core';
import { STATE_SCORE_CAPS } from '@svc/email-verifier';
import { type LocalPartPattern, localPartPattern, type PatternCount, wilsonInterval } from './pattern.js';
import { type AddressSummary, addressOutcome } from './summary.js';

/** How long each kind of evidence is believed, and how much a pattern estimate needs. */
export interface HistoryPolicy {
  /** A delivery this recent makes an address deliverable. @default 180 */
  deliveredWindowDays?: number;
  /** A mailbox-level hard bounce this recent (and after the last delivery) makes it undeliverable. @default 365 */
  bounceWindowDays?: number;
  /** A complaint this recent makes it risky. @default 365 */
  complaintWindowDays?: number;
  /** Fewest addresses of one pattern at a domain before a pattern estimate changes a verdict. @default 10 */
  patternMinAddresses?: number;
  /** Lower bound of the 95 % interval of a pattern's delivery rate that raises an address's score. @default 0.8 */
  patternDeliverLow?: number;
  /** Upper bound of that interval under which the pattern is called a mismatch. @default 0.3 */
  patternMismatchHigh?: number;
}

const DAY_MS = 86_400_000;
const DEFAULTS: Required<HistoryPolicy> = {
  deliveredWindowDays: 180,
  bounceWindowDays: 365,
  complaintWindowDays: 365,
  patternMinAddresses: 10,
  patternDeliverLow: 0.8,
  patternMismatchHigh: 0.3,
};

/** The `history` object of a verification result (API field names). */
export interface HistoryField {
  /** Events on record for this address. */
  events: number;
  last_delivered_at: string | null;
  last_hard_bounce: {
    at: string;
    provider: string;
    /** The reply reader's reason (`mailbox_not_found`, `blocked_by_policy`, …); null when unreadable. */
    reason: string | null;
    /** Only mailbox-level bounces count against an address. */
    counts_against_address: boolean;
  } | null;
  last_complaint_at: string | null;
  /** The catch-all domain's evidence for this address's local-part pattern; null when not asked. */
  pattern: {
    pattern: LocalPartPattern;
    delivered: number;
    bounced: number;
    /** The 95 % interval of the pattern's delivery rate at this domain. */
    delivery_rate_low: number;
    delivery_rate_high: number;
  } | null;
  /** Whose events these are: this account's, or shared by the operator's accounts. */
  scope: 'account' | 'shared';
}

/** What history did to a verdict, for the feedback statistics. */
export type VerdictChange = 'upgraded' | 'downgraded' | null;

export interface HistoryEvidence {
  summary: AddressSummary | null;
  /** The domain's pattern counts; only read for a catch-all domain without decisive address history. */
  patterns?: readonly PatternCount[];
  scope: 'account' | 'shared';
}

// Verdicts whose cause is the domain or the syntax: no send history can revive them.
const FINAL_REASONS = new Set([
  'invalid_syntax',
  'address_literal',
  'domain_not_found',
  'null_mx',
  'no_mx_records',
]);
// A probe that saw the mailbox refused: newer than a delivery when the probe ran later.
const LIVE_REFUSALS = new Set(['mailbox_not_found', 'mailbox_disabled']);
const RANK: Record<VerificationState, number> = { undeliverable: 0, unknown: 1, risky: 2, deliverable: 3 };

/**
 * Applies an address's delivery history to a verification result, by this table (first match):
 * 1. syntax or domain failures stay as they are (history is shown, never used);
 * 2. a complaint within `complaintWindowDays` → `risky`, reason `complained`;
 * 3. a mailbox-level hard bounce within `bounceWindowDays` after the last delivery (or with none)
 *    → `undeliverable`, reason `previously_bounced`;
 * 4. a delivery within `deliveredWindowDays` → `deliverable`, reason `previously_delivered`, even at a
 *    catch-all domain; unless the probe, run after that delivery, saw the mailbox refused (then the
 *    probe's verdict stands and `previously_delivered` is added as information);
 * 5. at a catch-all domain, the address's local-part pattern: at least `patternMinAddresses`
 *    addresses of that pattern with a delivery-rate interval above `patternDeliverLow` → reason
 *    `catch_all_pattern_match`, the state kept (a wrong guess of the domain's main shape looks
 *    exactly like a real address, so only the address's own history makes it `deliverable`) and
 *    the score raised within that state's range; an interval below `patternMismatchHigh`, or
 *    no address of this pattern where another pattern clearly delivers → reason
 *    `catch_all_pattern_mismatch` (the verdict stays; unseen is not proven absent);
 * 6. otherwise the result is unchanged.
 * Soft bounces and unsubscribes are recorded and shown, and change nothing.
 */
export function applyHistory(
  result: EmailVerificationResult,
  evidence: HistoryEvidence,
  now: Date,
  policy: HistoryPolicy = {},
): { result: EmailVerificationResult & { history: HistoryField | null }; change: VerdictChange } {
  const settings = { ...DEFAULTS, ...policy };
  const { summary } = evidence;
  const within = (at: string | null, days: number): boolean =>
    at !== null && now.getTime() - Date.parse(at) <= days * DAY_MS;

  const history: HistoryField | null = summary
    ? {
        events: summary.events,
        last_delivered_at: summary.lastDeliveredAt,
        last_hard_bounce: summary.lastHardBounce && {
          at: summary.lastHardBounce.at,
          provider: summary.lastHardBounce.provider,
          reason: summary.lastHardBounce.reading.reason,
          counts_against_address: summary.lastHardBounce.reading.level === 'mailbox',
        },
        last_complaint_at: summary.lastComplaintAt,
        pattern: null,
        scope: evidence.scope,
      }
    : null;
  const unchanged = { result: { ...result, history }, change: null };
  if (result.reasons.some((reason) => FINAL_REASONS.has(reason))) return unchanged;

  const verdict = (state: VerificationState, reason: string, score: number, shown = history) => {
    const next = {
      ...result,
      state,
      deliverable: state === 'deliverable',
      quality_score: Math.round(score * 100) / 100,
      reasons: [reason, ...result.reasons.filter((r) => r !== reason)],
      history: shown,
    };
    const change: VerdictChange =
      RANK[state] > RANK[result.state] ? 'upgraded' : RANK[state] < RANK[result.state] ? 'downgraded' : null;
    return { result: next, change };
  };

  if (summary) {
    if (within(summary.lastComplaintAt, settings.complaintWindowDays)) {
      return verdict('risky', 'complained', Math.min(result.quality_score, 0.3));
    }
    const outcome = addressOutcome(summary);
    if (outcome === 'bounced' && within(summary.lastMailboxBounceAt, settings.bounceWindowDays)) {
      return verdict('undeliverable', 'previously_bounced', 0);
    }
    if (outcome === 'delivered' && within(summary.lastDeliveredAt, settings.deliveredWindowDays)) {
      const probedLater =
        result.reasons.some((reason) => LIVE_REFUSALS.has(reason)) &&
        Date.parse(result.checked_at) > Date.parse(summary.lastDeliveredAt as string);
      if (probedLater) {
        return verdict(result.state, 'previously_delivered', result.quality_score);
      }
      return verdict('deliverable', 'previously_delivered', Math.max(result.quality_score, 0.9));
    }
  }

  if (!result.is_catch_all || !evidence.patterns || result.state === 'deliverable') return unchanged;
  const address = result.normalized ?? result.email;
  const pattern = localPartPattern(address);
  const own = evidence.patterns.find((count) => count.pattern === pattern) ?? {
    pattern,
    delivered: 0,
    bounced: 0,
  };
  const interval = wilsonInterval(own.delivered, own.bounced);
  const patternField: HistoryField['pattern'] = {
    pattern,
    delivered: own.delivered,
    bounced: own.bounced,
    delivery_rate_low: Math.round(interval.low * 100) / 100,
    delivery_rate_high: Math.round(interval.high * 100) / 100,
  };
  // The address's own history (or an empty one) with the domain's evidence for its pattern.
  const shown: HistoryField = {
    ...(history ?? {
      events: 0,
      last_delivered_at: null,
      last_hard_bounce: null,
      last_complaint_at: null,
      scope: evidence.scope,
    }),
    pattern: patternField,
  };
  const seen = own.delivered + own.bounced;
  if (seen >= settings.patternMinAddresses && interval.low >= settings.patternDeliverLow) {
    const score = Math.min(STATE_SCORE_CAPS[result.state], Math.max(result.quality_score, interval.low));
    return verdict(result.state, 'catch_all_pattern_match', score, shown);
  }
  const otherDelivers = evidence.patterns.some(
    (count) =>
      count.pattern !== pattern &&
      count.delivered + count.bounced >= settings.patternMinAddresses &&
      wilsonInterval(count.delivered, count.bounced).low >= settings.patternDeliverLow,
  );
  const mismatch =
    (seen >= settings.patternMinAddresses && interval.high <= settings.patternMismatchHigh) ||
    (seen === 0 && otherDelivers);
  if (mismatch) {
    return verdict(result.state, 'catch_all_pattern_mismatch', Math.min(result.quality_score, 0.2), shown);
  }
  // Nothing known of the address nor of its pattern: nothing to show.
  if (seen === 0 && history === null) return unchanged;
  return { result: { ...result, history: shown }, change: null };
}
