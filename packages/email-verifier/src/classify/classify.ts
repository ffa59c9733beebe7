import type { VerificationState } from '@svc/core';
import {
  DOMAIN_STATUSES,
  type DomainStatus,
  PROBE_VERDICTS,
  type ProbeVerdict,
  type VerificationFacts,
} from './facts.js';
import type { VerificationReason } from './reasons.js';
import {
  type FactFlags,
  MODIFIER_TABLE,
  STATE_SCORE_CAPS,
  STATE_SEVERITY,
  VERDICT_TABLE,
  type VerdictRow,
} from './table.js';

/** The verdict part of a verification result, with the spec's field names. */
export interface Classification {
  state: VerificationState;
  /** True only when state is `deliverable`. */
  deliverable: boolean;
  /** 0..1, two decimals. */
  quality_score: number;
  /** Verdict reason first, then modifier reasons in table order; empty when there are none. */
  reasons: VerificationReason[];
  /** Disposable and `check_disposable` on (with it off the check is not made, so false). */
  is_disposable: boolean;
  is_catch_all: boolean;
}

const DOMAIN_STATUS_SET: ReadonlySet<string> = new Set(DOMAIN_STATUSES);
const PROBE_VERDICT_SET: ReadonlySet<string> = new Set(PROBE_VERDICTS);

/**
 * Turns the facts about an address into state, deliverable, quality_score and reasons by the
 * verdict and modifier tables (see the README's classification table). Throws a TypeError for
 * facts that are not one of the documented values.
 */
export function classify(facts: VerificationFacts): Classification {
  const flags = toFlags(facts);
  // The flags take fewer than 2^16 combinations, so each verdict is computed once and copied out:
  // classify runs once per address in million-address batches.
  const key = flagsKey(flags);
  let verdict = VERDICTS[key];
  if (verdict === undefined) {
    verdict = evaluate(flags);
    VERDICTS[key] = verdict;
  }
  return {
    state: verdict.state,
    deliverable: verdict.deliverable,
    quality_score: verdict.quality_score,
    reasons: verdict.reasons.slice(),
    is_disposable: verdict.is_disposable,
    is_catch_all: verdict.is_catch_all,
  };
}

const VERDICTS: Array<Readonly<Classification> | undefined> = new Array(1 << 16);
const DOMAIN_STATUS_INDEX = new Map<string, number>(DOMAIN_STATUSES.map((status, index) => [status, index]));
const PROBE_VERDICT_INDEX = new Map<string, number>(PROBE_VERDICTS.map((verdict, index) => [verdict, index]));

/** A distinct small integer for every combination of flags. */
function flagsKey(flags: FactFlags): number {
  return (
    (flags.syntaxValid ? 1 : 0) |
    (flags.addressLiteral ? 2 : 0) |
    (flags.disposable ? 4 : 0) |
    (flags.typoSuggestion ? 8 : 0) |
    (flags.role ? 16 : 0) |
    (flags.free ? 32 : 0) |
    ((flags.catchAll === null ? 0 : flags.catchAll ? 1 : 2) << 6) |
    ((DOMAIN_STATUS_INDEX.get(flags.domainStatus) as number) << 8) |
    ((PROBE_VERDICT_INDEX.get(flags.probeOutcome) as number) << 11)
  );
}

function evaluate(flags: FactFlags): Readonly<Classification> {
  const verdict = VERDICT_TABLE.find((row) => matches(row.when, flags)) as VerdictRow;
  let state = verdict.state;
  let score = verdict.score;
  const reasons: VerificationReason[] = verdict.reason === null ? [] : [verdict.reason];
  for (const row of MODIFIER_TABLE) {
    if (!matches(row.when, flags)) continue;
    reasons.push(row.reason);
    score *= row.factor;
    if (row.atLeast !== null && STATE_SEVERITY[row.atLeast] > STATE_SEVERITY[state]) state = row.atLeast;
  }
  score = Math.min(score, STATE_SCORE_CAPS[state]);
  // Not frozen: copying a frozen array takes V8's slow path. Only copies ever leave classify.
  return {
    state,
    deliverable: state === 'deliverable',
    quality_score: Math.round(Math.max(0, score) * 100) / 100,
    reasons,
    is_disposable: flags.disposable,
    is_catch_all: flags.catchAll === true,
  };
}

function matches(when: Partial<FactFlags>, flags: FactFlags): boolean {
  for (const key in when) {
    if (when[key as keyof FactFlags] !== flags[key as keyof FactFlags]) return false;
  }
  return true;
}

// The one place defaults are resolved. With invalid syntax nothing else is known, so every other
// flag is neutral and only the invalid_syntax row can match.
function toFlags(facts: VerificationFacts): FactFlags {
  if (typeof facts !== 'object' || facts === null) throw new TypeError('classify needs a facts object');
  const syntaxValid = bool(facts.syntaxValid, 'syntaxValid');
  const domainStatus = oneOf<DomainStatus>(
    facts.domainStatus ?? 'not_checked',
    DOMAIN_STATUS_SET,
    'domainStatus',
  );
  const probeOutcome = oneOf<ProbeVerdict>(
    facts.probeOutcome ?? 'not_probed',
    PROBE_VERDICT_SET,
    'probeOutcome',
  );
  const probeRequested = bool(facts.probeRequested ?? false, 'probeRequested');
  if (!probeRequested && probeOutcome !== 'not_probed') {
    throw new TypeError(`probeOutcome is "${probeOutcome}" but probeRequested is false`);
  }
  const catchAll = facts.catchAll ?? null;
  if (catchAll !== null && typeof catchAll !== 'boolean')
    throw new TypeError('catchAll must be true, false or null');
  const typo = facts.typoSuggestion ?? null;
  if (typo !== null && (typeof typo !== 'string' || typo === '')) {
    throw new TypeError('typoSuggestion must be a domain or null');
  }
  const checkDisposable = bool(facts.checkDisposable ?? true, 'checkDisposable');
  const flags: FactFlags = {
    syntaxValid,
    addressLiteral: bool(facts.addressLiteral ?? false, 'addressLiteral'),
    domainStatus,
    probeOutcome,
    catchAll,
    disposable: checkDisposable && bool(facts.disposable ?? false, 'disposable'),
    typoSuggestion: typo !== null,
    role: bool(facts.role ?? false, 'role'),
    free: bool(facts.free ?? false, 'free'),
  };
  if (!syntaxValid) {
    return {
      ...flags,
      addressLiteral: false,
      catchAll: null,
      disposable: false,
      typoSuggestion: false,
      role: false,
      free: false,
    };
  }
  return flags;
}

function bool(value: unknown, name: string): boolean {
  if (typeof value !== 'boolean')
    throw new TypeError(`${name} must be a boolean, got ${JSON.stringify(value)}`);
  return value;
}

function oneOf<T extends string>(value: unknown, allowed: ReadonlySet<string>, name: string): T {
  if (typeof value !== 'string' || !allowed.has(value)) {
    throw new TypeError(`${name} must be one of ${[...allowed].join(', ')}; got ${JSON.stringify(value)}`);
  }
  return value as T;
}
