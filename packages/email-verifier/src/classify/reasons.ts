import { SESSION_REFUSALS } from '../smtp/reply-patterns.js';

/**
 * Every reason a verification result can carry, as stable snake_case strings (DESIGN §4). New
 * reasons may be added; existing ones are never renamed or removed.
 */
export const VERIFICATION_REASONS = [
  'invalid_syntax',
  'address_literal',
  'domain_not_checked',
  'domain_not_found',
  'null_mx',
  'no_mx_records',
  'dns_error',
  'dns_unavailable',
  'mailbox_not_probed',
  'mailbox_not_found',
  'mailbox_disabled',
  'mailbox_full',
  'greylisted',
  'blocked_by_policy',
  'smtp_timeout',
  'smtp_unreachable',
  'proxy_unavailable',
  'smtp_temporary_failure',
  'smtp_rejected',
  ...SESSION_REFUSALS,
  'catch_all',
  'disposable',
  'typo_suggestion',
  'role_account',
  'free_provider',
  // From recorded delivery feedback (@svc/feedback): what the sender's own sends showed.
  'previously_delivered',
  'previously_bounced',
  'complained',
  'catch_all_pattern_match',
  'catch_all_pattern_mismatch',
] as const;

/** One of VERIFICATION_REASONS. */
export type VerificationReason = (typeof VERIFICATION_REASONS)[number];
