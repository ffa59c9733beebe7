import type { SmtpReply } from './reply.js';

/** What one RCPT reply says about a mailbox. */
export type RcptOutcome =
  | 'accepted'
  | 'mailbox_not_found'
  | 'mailbox_disabled'
  | 'mailbox_full'
  | 'greylisted'
  | 'blocked_by_policy'
  | 'too_many_recipients'
  | 'temporary_failure'
  | 'rejected_unclear';

// Text fallbacks, used only when a reply carries no enhanced status code. Order matters: policy
// wording is checked first because block messages often also say "user" or "recipient".
const TEXT_RULES: Array<[RegExp, RcptOutcome]> = [
  [/greylist|graylist|try again later|deferred/i, 'greylisted'],
  [
    /block|spam|policy|blacklist|blocklist|reputation|spamhaus|\brbl\b|not allowed|denied|banned/i,
    'blocked_by_policy',
  ],
  [/full|quota|insufficient (storage|space)/i, 'mailbox_full'],
  [/disabled|inactive|suspended|deactivated|no longer/i, 'mailbox_disabled'],
  [
    /unknown|no such|not exist|does not exist|doesn't exist|not found|invalid (recipient|mailbox|address)|unrouteable|mailbox unavailable|user unknown|no mailbox|recipient rejected/i,
    'mailbox_not_found',
  ],
];

/**
 * Classifies a RCPT reply by structure first (reply class, then RFC 3463 enhanced status), text
 * only as a fallback. A 4xx is never a dead mailbox, and neither is a policy block (x.7.x).
 */
export function classifyRcptReply(reply: SmtpReply): RcptOutcome {
  if (reply.code >= 200 && reply.code < 300) return 'accepted';
  const text = reply.lines.join(' ');
  const [, subject, detail] = (reply.enhanced ?? '').split('.').map(Number);
  if (reply.code >= 400 && reply.code < 500) {
    if (reply.code === 452 && subject === 5 && detail === 3) return 'too_many_recipients';
    if (reply.code === 452 && /too many recipients/i.test(text)) return 'too_many_recipients';
    if (subject === 7 || /greylist|graylist/i.test(text)) return 'greylisted';
    if (subject === 2 && detail === 2) return 'temporary_failure';
    return /greylist|graylist|try again/i.test(text) ? 'greylisted' : 'temporary_failure';
  }
  if (reply.code >= 500 && reply.code < 600) {
    if (subject !== undefined && !Number.isNaN(subject)) {
      if (subject === 7) return 'blocked_by_policy';
      if (subject === 1 && (detail === 1 || detail === 10 || detail === 0 || detail === 3))
        return 'mailbox_not_found';
      if (subject === 1 && detail === 6) return 'mailbox_disabled';
      if (subject === 2 && detail === 1) return 'mailbox_disabled';
      if (subject === 2 && detail === 2) return 'mailbox_full';
      if (subject === 5 && detail === 3) return 'too_many_recipients';
    }
    for (const [pattern, outcome] of TEXT_RULES) if (pattern.test(text)) return outcome;
    // RFC 5321 §4.2.2: 550/553 mean "mailbox unavailable / name not allowed": a missing mailbox
    // unless something above said otherwise; 554 is a transaction refusal, usually policy.
    if (reply.code === 550 || reply.code === 553) return 'mailbox_not_found';
    if (reply.code === 554) return 'blocked_by_policy';
    return 'rejected_unclear';
  }
  return 'rejected_unclear';
}
