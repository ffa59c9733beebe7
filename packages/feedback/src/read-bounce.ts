import { explainRcptReply } from '@svc/email-verifier';

/** The probe's reading of a reply (`mailbox_not_found`, `blocked_by_policy`, …). */
type RcptOutcome = ReturnType<typeof explainRcptReply>['outcome'];

import type { FeedbackEvent } from './event.js';

/**
 * What a hard bounce says about its mailbox. `mailbox`: the mailbox does not exist, is disabled or
 * full (only these count against an address); `policy`: the receiver refused the sender or the
 * message (blocked, spam, rate limits), which says nothing about the mailbox; `unclear`: no reply
 * to read, or one the reader cannot place.
 */
export type BounceLevel = 'mailbox' | 'policy' | 'unclear';

export interface BounceReading {
  level: BounceLevel;
  /** The probe's reason for the same reply (`mailbox_not_found`, `blocked_by_policy`, …), or null. */
  reason: RcptOutcome | null;
  /** Where the reading came from: the relayed SMTP reply, or the provider's own bounce type. */
  from: 'reply' | 'provider' | 'none';
}

const MAILBOX_OUTCOMES: ReadonlySet<RcptOutcome> = new Set(['mailbox_not_found', 'mailbox_disabled']);
// A full mailbox exists: it is a soft problem even when the provider calls the bounce hard.
const UNCLEAR_OUTCOMES: ReadonlySet<RcptOutcome> = new Set([
  'rejected_unclear',
  'temporary_failure',
  'mailbox_full',
]);

/**
 * Provider bounce types that name a missing mailbox without a relayed reply. Only types whose
 * documentation says so: SES `Permanent/NoEmail` ("the intended recipient's email provider sent a
 * bounce message indicating that the email address doesn't exist"). Everything else is unclear
 * without the reply text.
 */
const PROVIDER_MAILBOX_TYPES: ReadonlySet<string> = new Set(['permanent/noemail']);

/**
 * Reads a hard bounce with the same reply reader as the SMTP probe (`explainRcptReply`), so a
 * bounce and a probe that saw the same reply say the same thing. The diagnostic may carry a type
 * prefix (`smtp; 550 …`, `smtp;550 …`) and the code may be missing when only the enhanced status
 * was relayed (`5.1.1 …`).
 */
export function readBounce(event: Pick<FeedbackEvent, 'diagnostic' | 'bounceType'>): BounceReading {
  const reply = parseRelayedReply(event.diagnostic);
  if (reply) {
    const { outcome } = explainRcptReply(reply);
    if (MAILBOX_OUTCOMES.has(outcome)) return { level: 'mailbox', reason: outcome, from: 'reply' };
    if (outcome === 'accepted' || UNCLEAR_OUTCOMES.has(outcome)) {
      return { level: 'unclear', reason: outcome === 'accepted' ? null : outcome, from: 'reply' };
    }
    return { level: 'policy', reason: outcome, from: 'reply' };
  }
  if (event.bounceType && PROVIDER_MAILBOX_TYPES.has(event.bounceType.toLowerCase().replace(/\s+/g, ''))) {
    return { level: 'mailbox', reason: 'mailbox_not_found', from: 'provider' };
  }
  return { level: 'unclear', reason: null, from: 'none' };
}

const CODE = /^(\d{3})(?:[ -]|$)/;
const BARE_STATUS = /^([245])\.(\d{1,3})\.(\d{1,3})\b/;

/** The SMTP reply inside a provider's diagnostic text; null when it holds none. */
export function parseRelayedReply(
  diagnostic: string | null | undefined,
): { code: number; enhanced: string | undefined; lines: string[] } | null {
  if (!diagnostic) return null;
  // "smtp; 550 …", "SMTP;550-…", "X-Postfix; …": drop a leading diagnostic type.
  const text = diagnostic.replace(/^\s*[a-z][a-z0-9-]*\s*;\s*/i, '').trim();
  const coded = CODE.exec(text);
  if (coded) {
    const code = Number(coded[1]);
    if (code < 200 || code > 599) return null;
    const rest = text.slice(3).replace(/^[ -]/, '');
    const status = BARE_STATUS.exec(rest);
    // An enhanced status counts only when its class agrees with the code (RFC 3463 §2).
    const enhanced = status && Number(status[1]) === Math.floor(code / 100) ? status[0] : undefined;
    return { code, enhanced, lines: [rest] };
  }
  const status = BARE_STATUS.exec(text);
  if (status) {
    const code = status[1] === '5' ? 550 : status[1] === '4' ? 450 : 250;
    return {
      code,
      enhanced: `${status[1]}.${status[2]}.${status[3]}`,
      lines: [text.slice(status[0].length).trim()],
    };
  }
  return null;
}
