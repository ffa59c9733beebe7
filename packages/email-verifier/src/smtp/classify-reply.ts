import type { SmtpReply } from './reply.js';
import {
  ABOUT_US_TEXTS,
  GREYLIST_TEXT,
  MAILBOX_TEXTS,
  NOT_ALLOWLISTED_TEXT,
  PROVIDER_MAILBOX_REPLIES,
  RETRY_LATER_TEXT,
  SERVER_TROUBLE_TEXT,
  type SessionRefusal,
  TOO_MANY_RECIPIENTS_TEXT,
} from './reply-patterns.js';

export { SESSION_REFUSALS, type SessionRefusal } from './reply-patterns.js';

/** What one RCPT reply says about a mailbox, or about our side of the session. */
export type RcptOutcome =
  | 'accepted'
  | 'mailbox_not_found'
  | 'mailbox_disabled'
  | 'mailbox_full'
  | 'greylisted'
  | 'blocked_by_policy'
  | 'too_many_recipients'
  | 'temporary_failure'
  | 'rejected_unclear'
  | SessionRefusal;

/** An RFC 3463 status split into its numbers. */
interface Status {
  /** As written, e.g. `5.1.1`. */
  full: string;
  subject: number;
  detail: number;
}

// qmail and its descendants put the status at the end: `550 sorry, no mailbox here by that name. (#5.1.1)`.
const TRAILING_STATUS = /\(#([245])\.(\d{1,3})\.(\d{1,3})(?:\s[^)]*)?\)/;

/**
 * The reply's enhanced status: the RFC 2034 one at the start, else a qmail-style `(#x.y.z)`. A
 * status whose class differs from the reply code, whose subject is not one RFC 3463 defines
 * (0–7), or that is `x.0.0` ("other undefined status") carries no information and is ignored.
 */
function statusOf(reply: SmtpReply, text: string): Status | undefined {
  let raw = reply.enhanced;
  if (raw === undefined) {
    const match = TRAILING_STATUS.exec(text);
    if (match && Number(match[1]) === Math.floor(reply.code / 100))
      raw = `${match[1]}.${match[2]}.${match[3]}`;
  }
  if (raw === undefined) return undefined;
  const [, subject = Number.NaN, detail = Number.NaN] = raw.split('.').map(Number);
  if (!(subject >= 0 && subject <= 7) || (subject === 0 && detail === 0)) return undefined;
  return { full: raw, subject, detail };
}

/**
 * What a status says when it is about us rather than the mailbox (RFC 3463, RFC 7372, RFC 7505):
 * sender address problems, authentication, TLS, reverse DNS, floods.
 */
function statusAboutUs({ subject, detail }: Status): SessionRefusal | undefined {
  if (subject === 1 && (detail === 7 || detail === 8)) return 'sender_rejected';
  if (subject !== 7) return undefined;
  if ([20, 21, 22, 23, 24, 26, 29].includes(detail)) return 'sender_authentication_failed';
  if (detail === 25) return 'reverse_dns_failed';
  if (detail === 27) return 'sender_rejected';
  if (detail === 28) return 'rate_limited';
  if (detail === 10 || detail === 11 || detail === 30) return 'tls_required';
  // RFC 4954's authentication statuses (x.7.8, x.7.9, …) answer AUTH; after RCPT providers reuse
  // them for policy (Yahoo's `554 5.7.9 Message not accepted for policy reasons`).
  return undefined;
}

/** A 5xx's verdict from its status alone (the status decides when present). */
function permanentByStatus({ subject, detail }: Status): RcptOutcome {
  if (subject === 1) {
    if (detail === 1 || detail === 10) return 'mailbox_not_found';
    if (detail === 6) return 'mailbox_disabled';
    // x.1.2 "bad destination system": this server does not take mail for that domain.
    if (detail === 2) return 'relay_denied';
    // x.1.0, x.1.3 (syntax), x.1.4 (ambiguous), …: nothing certain about the mailbox.
    return 'rejected_unclear';
  }
  if (subject === 2) {
    if (detail === 1) return 'mailbox_disabled';
    if (detail === 2) return 'mailbox_full';
    return 'rejected_unclear';
  }
  if (subject === 5 && detail === 3) return 'too_many_recipients';
  // RFC 7372's x.7.13 "user account disabled" is the one policy status that names the mailbox.
  if (subject === 7) return detail === 13 ? 'mailbox_disabled' : 'blocked_by_policy';
  // x.3.x system, x.4.x network, x.5.x protocol, x.6.x content: not about the mailbox.
  return 'rejected_unclear';
}

function firstMatch<T>(table: ReadonlyArray<readonly [RegExp, T]>, text: string): T | undefined {
  for (const [pattern, outcome] of table) if (pattern.test(text)) return outcome;
  return undefined;
}

/**
 * Classifies a RCPT reply by what it is about. A 2xx accepts. A text about the sender or the
 * connection (sender refused, SPF/DMARC, reverse DNS, block lists, rate limits, relay,
 * authentication, TLS) gives that reason whatever the code. Otherwise a 4xx is temporary (never a
 * dead mailbox) and a 5xx with an RFC 3463 status is decided by the status; only a 5xx without
 * one is read by its text, and a 5xx with neither is `rejected_unclear`, since RFC 5321's 550
 * covers "mailbox not found, no access, or command rejected for policy reasons" alike.
 */
export function classifyRcptReply(reply: SmtpReply): RcptOutcome {
  if (reply.code >= 200 && reply.code < 300) return 'accepted';
  const text = reply.lines.join(' ');
  const status = statusOf(reply, text);
  if (reply.code >= 400 && reply.code < 500) return classifyTemporary(reply.code, text, status);
  if (reply.code < 500 || reply.code >= 600) return 'rejected_unclear';

  for (const [statusText, pattern, outcome] of PROVIDER_MAILBOX_REPLIES) {
    if ((statusText === null || statusText === status?.full) && pattern.test(text)) return outcome;
  }
  const aboutUs = firstMatch(ABOUT_US_TEXTS, text) ?? (status && statusAboutUs(status));
  if (aboutUs) return aboutUs;
  // 500–504 are syntax and sequence errors, 530/535 authentication, 521/556 "no mail here"
  // (RFC 5321, 4954, 7504): whatever the text, they say nothing about the mailbox.
  if (reply.code === 530 || reply.code === 535) return 'authentication_required';
  if (reply.code <= 504 || reply.code === 521 || reply.code === 556) return 'rejected_unclear';
  if (status) return permanentByStatus(status);
  return firstMatch(MAILBOX_TEXTS, text) ?? 'rejected_unclear';
}

function classifyTemporary(
  code: number,
  text: string,
  status: Status | undefined,
): Exclude<RcptOutcome, 'accepted'> {
  if (code === 452 && ((status?.subject === 5 && status.detail === 3) || TOO_MANY_RECIPIENTS_TEXT.test(text)))
    return 'too_many_recipients';
  const aboutUs = firstMatch(ABOUT_US_TEXTS, text) ?? (status && statusAboutUs(status));
  if (aboutUs) return aboutUs;
  if (NOT_ALLOWLISTED_TEXT.test(text)) return 'blocked_by_policy';
  // Exchange Online's 4.7.500–4.7.899 are its throttling of a sending IP.
  if (status?.subject === 7 && status.detail >= 500 && status.detail < 900) return 'rate_limited';
  if (GREYLIST_TEXT.test(text)) return 'greylisted';
  // A mailbox full for now (x.2.2) or a busy server is not greylisting, whatever "try later" it adds.
  if ((status?.subject === 2 && status.detail === 2) || SERVER_TROUBLE_TEXT.test(text))
    return 'temporary_failure';
  // Greylisting servers answer 4.7.x or, without a status, "try again later".
  if (status?.subject === 7 || (status === undefined && RETRY_LATER_TEXT.test(text))) return 'greylisted';
  return 'temporary_failure';
}

/**
 * Classifies the refusal of a session before any RCPT: the greeting, EHLO/HELO, STARTTLS or MAIL
 * FROM. Such a refusal is about us (our address, name or sender), never about a mailbox: a text
 * that says what gives that reason; a refused MAIL FROM is otherwise `sender_rejected`.
 */
export function classifySessionRefusal(
  reply: SmtpReply,
  stage: 'greeting' | 'helo' | 'starttls' | 'mail_from',
): Exclude<RcptOutcome, 'too_many_recipients' | 'accepted'> | 'unreachable' {
  const text = reply.lines.join(' ');
  const status = statusOf(reply, text);
  if (reply.code >= 400 && reply.code < 500) {
    const outcome = classifyTemporary(reply.code, text, status);
    return outcome === 'too_many_recipients' ? 'temporary_failure' : outcome;
  }
  const aboutUs = firstMatch(ABOUT_US_TEXTS, text) ?? (status && statusAboutUs(status));
  if (aboutUs) return aboutUs;
  if (stage === 'mail_from') return 'sender_rejected';
  if (stage === 'helo' && reply.code >= 500) return 'helo_rejected';
  if (status?.subject === 7 || /block|spam|policy|denied|reputation/i.test(text)) return 'blocked_by_policy';
  // A greeting of `554 No SMTP service here`: this host takes no mail; try the next one.
  return 'unreachable';
}

/** The parts of an SMTP exchange the catch-all evidence compares. */
export interface ReplyDetail {
  code: number | null;
  enhanced_status: string | null;
  message: string | null;
}

// Outcomes a recipient can get that neither describe the mailbox nor already name our side.
const RECIPIENT_REFUSALS: ReadonlySet<string> = new Set(['blocked_by_policy', 'rejected_unclear']);

/**
 * The catch-all probe as evidence: when a recipient and the synthetic address of its domain got
 * the same 5xx refusal (same code, status and wording once the addresses are taken out) and it
 * does not say the mailbox is missing, disabled or full, the server refused everyone in the
 * session, which is a refusal of our sender, not of the mailbox: `sender_rejected`.
 */
export function withSyntheticEvidence<T extends { outcome: string; detail: ReplyDetail }>(
  result: T,
  synthetic: ReplyDetail | undefined,
): T {
  if (!synthetic || !RECIPIENT_REFUSALS.has(result.outcome)) return result;
  const { detail } = result;
  if (detail.code === null || detail.code < 500 || detail.code !== synthetic.code) return result;
  if (detail.enhanced_status !== synthetic.enhanced_status) return result;
  if (withoutAddresses(detail.message) !== withoutAddresses(synthetic.message)) return result;
  return { ...result, outcome: 'sender_rejected' };
}

function withoutAddresses(message: string | null): string {
  return (message ?? '').replace(/<[^>]*>|[^\s<>()[\]]+@[^\s<>()[\]]+/g, '<>').trim();
}
