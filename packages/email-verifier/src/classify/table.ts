import type { VerificationState } from '@svc/core';
import { SESSION_REFUSALS } from '../smtp/reply-patterns.js';
import type { DomainStatus, ProbeVerdict } from './facts.js';
import type { VerificationReason } from './reasons.js';

/** The facts reduced to the flat values the table rows match on. */
export interface FactFlags {
  syntaxValid: boolean;
  addressLiteral: boolean;
  domainStatus: DomainStatus;
  probeOutcome: ProbeVerdict;
  catchAll: boolean | null;
  /** Disposable and `check_disposable` on. */
  disposable: boolean;
  typoSuggestion: boolean;
  role: boolean;
  free: boolean;
}

/** A row decides the state: the first row whose `when` values all equal the flags wins. */
export interface VerdictRow {
  when: Partial<FactFlags>;
  reason: VerificationReason | null;
  state: VerificationState;
  /** The starting quality score, before modifiers. */
  score: number;
}

/** A row that applies on top of the verdict whenever its `when` values all equal the flags. */
export interface ModifierRow {
  when: Partial<FactFlags>;
  reason: VerificationReason;
  /** Raises the state to at least this one (never lowers it); null leaves the state alone. */
  atLeast: VerificationState | null;
  /** Multiplies the score. */
  factor: number;
}

/** Verdict rows in the order they are tried; the README's classification table mirrors them. */
export const VERDICT_TABLE: readonly VerdictRow[] = [
  { when: { syntaxValid: false }, reason: 'invalid_syntax', state: 'undeliverable', score: 0 },
  { when: { addressLiteral: true }, reason: 'address_literal', state: 'unknown', score: 0.3 },
  // The resolver failed its canary check: nothing it said (or a probe it led to) is a verdict.
  { when: { domainStatus: 'dns_unavailable' }, reason: 'dns_unavailable', state: 'unknown', score: 0.3 },
  { when: { domainStatus: 'not_found' }, reason: 'domain_not_found', state: 'undeliverable', score: 0 },
  { when: { domainStatus: 'null_mx' }, reason: 'null_mx', state: 'undeliverable', score: 0 },
  { when: { domainStatus: 'no_mx_records' }, reason: 'no_mx_records', state: 'undeliverable', score: 0 },
  { when: { domainStatus: 'dns_error' }, reason: 'dns_error', state: 'unknown', score: 0.3 },
  { when: { domainStatus: 'not_checked' }, reason: 'domain_not_checked', state: 'unknown', score: 0.5 },
  // From here on the domain accepts mail.
  { when: { probeOutcome: 'not_probed' }, reason: 'mailbox_not_probed', state: 'deliverable', score: 0.8 },
  { when: { probeOutcome: 'accepted', catchAll: null }, reason: null, state: 'deliverable', score: 0.95 },
  { when: { probeOutcome: 'accepted' }, reason: null, state: 'deliverable', score: 1 },
  {
    when: { probeOutcome: 'mailbox_not_found' },
    reason: 'mailbox_not_found',
    state: 'undeliverable',
    score: 0,
  },
  {
    when: { probeOutcome: 'mailbox_disabled' },
    reason: 'mailbox_disabled',
    state: 'undeliverable',
    score: 0,
  },
  { when: { probeOutcome: 'mailbox_full' }, reason: 'mailbox_full', state: 'risky', score: 0.3 },
  { when: { probeOutcome: 'greylisted' }, reason: 'greylisted', state: 'unknown', score: 0.5 },
  {
    when: { probeOutcome: 'temporary_failure' },
    reason: 'smtp_temporary_failure',
    state: 'unknown',
    score: 0.5,
  },
  { when: { probeOutcome: 'blocked_by_policy' }, reason: 'blocked_by_policy', state: 'unknown', score: 0.4 },
  { when: { probeOutcome: 'timeout' }, reason: 'smtp_timeout', state: 'unknown', score: 0.4 },
  { when: { probeOutcome: 'unreachable' }, reason: 'smtp_unreachable', state: 'unknown', score: 0.3 },
  { when: { probeOutcome: 'rejected_unclear' }, reason: 'smtp_rejected', state: 'unknown', score: 0.3 },
  // Our proxies failed, not the MX: nothing was learnt about the mailbox, as with smtp_unreachable.
  { when: { probeOutcome: 'proxy_unavailable' }, reason: 'proxy_unavailable', state: 'unknown', score: 0.3 },
  // The server refused us (sender, client, connection), so it said nothing about the mailbox.
  ...SESSION_REFUSALS.filter((outcome) => outcome !== 'rate_limited').map(
    (outcome): VerdictRow => ({
      when: { probeOutcome: outcome },
      reason: outcome,
      state: 'unknown',
      score: 0.4,
    }),
  ),
  // A rate limit passes; like greylisting, a later probe may well get through.
  { when: { probeOutcome: 'rate_limited' }, reason: 'rate_limited', state: 'unknown', score: 0.5 },
];

/** Modifier rows, all of which apply when they match; their reasons follow the verdict's in this order. */
export const MODIFIER_TABLE: readonly ModifierRow[] = [
  { when: { catchAll: true }, reason: 'catch_all', atLeast: 'risky', factor: 0.6 },
  { when: { disposable: true }, reason: 'disposable', atLeast: 'risky', factor: 0.5 },
  { when: { typoSuggestion: true }, reason: 'typo_suggestion', atLeast: 'risky', factor: 0.5 },
  { when: { role: true }, reason: 'role_account', atLeast: null, factor: 0.85 },
  { when: { free: true }, reason: 'free_provider', atLeast: null, factor: 0.95 },
];

/** How bad each state is; a modifier can only move the state up this scale. */
export const STATE_SEVERITY: Readonly<Record<VerificationState, number>> = {
  deliverable: 0,
  unknown: 1,
  risky: 2,
  undeliverable: 3,
};

/** The highest score each state can have, so scores sort the states apart. */
export const STATE_SCORE_CAPS: Readonly<Record<VerificationState, number>> = {
  deliverable: 1,
  risky: 0.6,
  unknown: 0.5,
  undeliverable: 0,
};
