import { SESSION_REFUSALS } from '../smtp/reply-patterns.js';

/**
 * What DNS said about the domain; `dns_error` is SERVFAIL/timeout, `dns_unavailable` means the
 * resolver failed its canary check so its answer was not believed (README "Resolver health"),
 * `not_checked` means no lookup ran.
 */
export const DOMAIN_STATUSES = [
  'accepts_mail',
  'not_found',
  'null_mx',
  'no_mx_records',
  'dns_error',
  'dns_unavailable',
  'not_checked',
] as const;

/** One of DOMAIN_STATUSES. */
export type DomainStatus = (typeof DOMAIN_STATUSES)[number];

/** What the SMTP probe concluded about the mailbox (the SMTP stage's ProbeOutcome plus `not_probed`). */
export const PROBE_VERDICTS = [
  'accepted',
  'mailbox_not_found',
  'mailbox_disabled',
  'mailbox_full',
  'greylisted',
  'blocked_by_policy',
  'timeout',
  'unreachable',
  // Every SOCKS5 proxy of the pool was out (failing, cooling down): nothing reached an MX.
  'proxy_unavailable',
  'temporary_failure',
  'rejected_unclear',
  // About our side of the session (sender, client, connection), never the mailbox.
  ...SESSION_REFUSALS,
  'not_probed',
] as const;

/** One of PROBE_VERDICTS. */
export type ProbeVerdict = (typeof PROBE_VERDICTS)[number];

/** Everything the pipeline found out about one address; classify turns it into a verdict. */
export interface VerificationFacts {
  /** Whether parseAddress accepted the address; when false every other fact is ignored. */
  syntaxValid: boolean;
  /** The domain is an address literal (`[192.0.2.1]`), which cannot be verified. @default false */
  addressLiteral?: boolean;
  /** @default 'not_checked' */
  domainStatus?: DomainStatus;
  /** The domain or a parent is on the disposable list (after allow/deny overrides). @default false */
  disposable?: boolean;
  /** The local part is a role such as `info` or `support`. @default false */
  role?: boolean;
  /** The domain belongs to a free mailbox provider. @default false */
  free?: boolean;
  /** The domain suggestDomain proposed instead, if any. @default null */
  typoSuggestion?: string | null;
  /** Whether the caller asked for an SMTP probe (`probe_mailbox`). @default false */
  probeRequested?: boolean;
  /** @default 'not_probed' */
  probeOutcome?: ProbeVerdict;
  /** Whether the domain accepts any recipient; null when it could not be told. @default null */
  catchAll?: boolean | null;
  /** The `check_disposable` option: when false, disposable domains are not flagged. @default true */
  checkDisposable?: boolean;
}
