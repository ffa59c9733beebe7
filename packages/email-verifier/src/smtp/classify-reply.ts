import { type MailboxVerdict, mailboxVerdictOf } from './mailbox-phrases.js';
import type { SmtpReply } from './reply.js';
import {
  ABOUT_US_TEXTS,
  GREYLIST_TEXT,
  MAILBOX_TEXTS,
  NOT_ALLOWLISTED_TEXT,
  POLICY_TEXT,
  PROVIDER_MAILBOX_REPLIES,
  RETRY_LATER_TEXT,
  SERVER_TROUBLE_TEXT,
  type SessionRefusal,
  SYSTEM_FAULT_TEXT,
  TOO_MANY_RECIPIENTS_TEXT,
} from './reply-patterns.js';
import { replyTextForMatching } from './reply-text.js';

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
export interface Status {
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

/** What the rules of the precedence tables look at: the reply once, read every way they need. */
export interface ReplyFacts {
  code: number;
  /** `replyTextForMatching` of the lines: normalised, addresses replaced by `EMAIL_ADDRESS`. */
  text: string;
  /** The meaningful RFC 3463 status, if any (see `statusOf`). */
  status: Status | undefined;
  /** What the text says about the mailbox without doubt (`mailboxVerdictOf`), if anything. */
  mailbox: MailboxVerdict | undefined;
  /** The text says it refused by policy (`POLICY_TEXT`). */
  policy: boolean;
  /** The text gives a policy reason: `POLICY_TEXT` but the bare verb "refused" ("refused: user invalid"). */
  policyReason: boolean;
  /** The status is x.2.2 (mailbox full). */
  fullStatus: boolean;
}

/** One row of a precedence table: the first row whose `decide` answers gives the outcome. */
export interface ReplyRule {
  /** Stable id, as in docs/email-verifier.md's reply tables and in `explainRcptReply`'s answer. */
  id: string;
  decide: (facts: ReplyFacts) => RcptOutcome | undefined;
}

/**
 * A text about our side of the session, except that rate-limit wording yields to a full mailbox
 * stated by an x.2.2 status or an unambiguous text ("User has too many messages on the server").
 */
function aboutUsText(facts: ReplyFacts): SessionRefusal | undefined {
  const aboutUs = firstMatch(ABOUT_US_TEXTS, facts.text);
  if (aboutUs === 'rate_limited' && (facts.fullStatus || facts.mailbox === 'mailbox_full')) return undefined;
  return aboutUs;
}

/**
 * How a 5xx reply to RCPT is read: the first row that answers decides. The order is the
 * precedence the README documents row by row: what names our side first (it is never a verdict on
 * the mailbox), then a wording that can only mean one thing about the mailbox, then policy
 * wording, then the enhanced status, then keywords.
 */
export const PERMANENT_REPLY_RULES: readonly ReplyRule[] = [
  {
    id: 'provider_reply',
    decide: ({ text, status }) => {
      for (const [statusText, pattern, outcome] of PROVIDER_MAILBOX_REPLIES) {
        if ((statusText === null || statusText === status?.full) && pattern.test(text)) return outcome;
      }
      return undefined;
    },
  },
  { id: 'too_many_recipients', decide: ({ code, status, text }) => tooManyRecipients(code, status, text) },
  { id: 'about_us_text', decide: aboutUsText },
  { id: 'about_us_status', decide: ({ status }) => status && statusAboutUs(status) },
  {
    id: 'authentication_code',
    decide: ({ code }) => (code === 530 || code === 535 ? 'authentication_required' : undefined),
  },
  {
    id: 'not_about_the_recipient_code',
    decide: ({ code }) => ([500, 502, 503, 504, 521, 556].includes(code) ? 'rejected_unclear' : undefined),
  },
  {
    id: 'system_fault_text',
    decide: ({ text }) => (SYSTEM_FAULT_TEXT.test(text) ? 'rejected_unclear' : undefined),
  },
  { id: 'mailbox_text', decide: ({ mailbox, policyReason }) => (policyReason ? undefined : mailbox) },
  { id: 'policy_text', decide: ({ policy }) => (policy ? 'blocked_by_policy' : undefined) },
  { id: 'status', decide: ({ status }) => status && permanentByStatus(status) },
  { id: 'keywords', decide: ({ text }) => firstMatch(MAILBOX_TEXTS, text) },
  { id: 'unclear', decide: () => 'rejected_unclear' },
];

/**
 * How a 4xx reply to RCPT is read. A 4xx is never a verdict on the mailbox, whatever it says: the
 * rows only choose which temporary reason to give.
 */
export const TEMPORARY_REPLY_RULES: readonly ReplyRule[] = [
  { id: 'too_many_recipients', decide: ({ code, status, text }) => tooManyRecipients(code, status, text) },
  // A mailbox full for now (x.2.2, or said in words) outranks rate-limit and retry wording.
  {
    id: 'full_for_now',
    decide: ({ fullStatus, mailbox }) =>
      fullStatus || mailbox === 'mailbox_full' ? 'temporary_failure' : undefined,
  },
  { id: 'about_us_text', decide: aboutUsText },
  { id: 'about_us_status', decide: ({ status }) => status && statusAboutUs(status) },
  {
    id: 'not_allowlisted',
    decide: ({ text }) => (NOT_ALLOWLISTED_TEXT.test(text) ? 'blocked_by_policy' : undefined),
  },
  // A temporary refusal that gives a policy reason (content, recipient rules) is not greylisting.
  { id: 'policy_text', decide: ({ policy }) => (policy ? 'blocked_by_policy' : undefined) },
  // Exchange Online's 4.7.500–4.7.899 are its throttling of a sending IP.
  {
    id: 'exchange_throttling',
    decide: ({ status }) =>
      status?.subject === 7 && status.detail >= 500 && status.detail < 900 ? 'rate_limited' : undefined,
  },
  { id: 'greylisting_text', decide: ({ text }) => (GREYLIST_TEXT.test(text) ? 'greylisted' : undefined) },
  {
    id: 'server_trouble',
    decide: ({ text }) => (SERVER_TROUBLE_TEXT.test(text) ? 'temporary_failure' : undefined),
  },
  // Greylisting servers answer 4.7.x or, without a status, "try again later".
  {
    id: 'retry_later',
    decide: ({ status, text }) =>
      status?.subject === 7 || (status === undefined && RETRY_LATER_TEXT.test(text))
        ? 'greylisted'
        : undefined,
  },
  { id: 'temporary', decide: () => 'temporary_failure' },
];

/**
 * "Too many recipients": in words with any 4xx or 552, or x.5.3 with 452 or 552 (RFC 5321
 * §4.5.3.1.10 gives 452 and tells clients to treat 552 as temporary).
 */
function tooManyRecipients(code: number, status: Status | undefined, text: string): RcptOutcome | undefined {
  if (code !== 552 && !(code >= 400 && code < 500)) return undefined;
  if (TOO_MANY_RECIPIENTS_TEXT.test(text)) return 'too_many_recipients';
  if (code !== 452 && code !== 552) return undefined;
  // Rambler answers its rate limit `452 4.5.3 rate limit exceeded`: the words say what it is.
  const x53 = status?.subject === 5 && status.detail === 3;
  return x53 && firstMatch(ABOUT_US_TEXTS, text) !== 'rate_limited' ? 'too_many_recipients' : undefined;
}

function factsOf(reply: SmtpReply): ReplyFacts {
  const text = replyTextForMatching(reply.lines);
  const status = statusOf(reply, text);
  return {
    code: reply.code,
    text,
    status,
    mailbox: mailboxVerdictOf(text),
    policy: POLICY_TEXT.test(text),
    policyReason: POLICY_TEXT.test(text.replace(/\brefused\b/gi, '')),
    fullStatus: status?.subject === 2 && status.detail === 2,
  };
}

/** What a RCPT reply says, and which row of the precedence tables decided it. */
export interface ReplyReading {
  outcome: RcptOutcome;
  /** `accepted`, `not_smtp` (a code outside 2xx–5xx), or a row id of the table that applied. */
  rule: string;
  /** The table: `permanent` for 5xx, `temporary` for 4xx, absent otherwise. */
  table?: 'permanent' | 'temporary';
}

/**
 * Reads a reply to RCPT TO (or a provider's bounce text given as an SMTP reply): the entry point
 * for everything that needs to know what a receiver said about a mailbox. A 2xx accepts; a 4xx is
 * read by `TEMPORARY_REPLY_RULES` and a 5xx by `PERMANENT_REPLY_RULES`, the first row that answers
 * deciding. Never throws.
 */
export function explainRcptReply(reply: SmtpReply): ReplyReading {
  if (reply.code >= 200 && reply.code < 300) return { outcome: 'accepted', rule: 'accepted' };
  const temporary = reply.code >= 400 && reply.code < 500;
  if (!temporary && !(reply.code >= 500 && reply.code < 600)) {
    return { outcome: 'rejected_unclear', rule: 'not_smtp' };
  }
  const facts = factsOf(reply);
  const table = temporary ? TEMPORARY_REPLY_RULES : PERMANENT_REPLY_RULES;
  for (const rule of table) {
    const outcome = rule.decide(facts);
    if (outcome !== undefined)
      return { outcome, rule: rule.id, table: temporary ? 'temporary' : 'permanent' };
  }
  /* c8 ignore next */
  throw new Error('unreachable: the last row of each table always answers');
}

/** What a RCPT reply says about a mailbox, or about our side of the session (`explainRcptReply`). */
export function classifyRcptReply(reply: SmtpReply): RcptOutcome {
  return explainRcptReply(reply).outcome;
}

function classifyTemporary(reply: SmtpReply): Exclude<RcptOutcome, 'accepted'> {
  const { outcome } = explainRcptReply(reply);
  return outcome === 'accepted' ? 'temporary_failure' : outcome;
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
  const text = replyTextForMatching(reply.lines);
  const status = statusOf(reply, text);
  if (reply.code >= 400 && reply.code < 500) {
    const outcome = classifyTemporary(reply);
    return outcome === 'too_many_recipients' ? 'temporary_failure' : outcome;
  }
  const aboutUs = firstMatch(ABOUT_US_TEXTS, text) ?? (status && statusAboutUs(status));
  if (aboutUs) return aboutUs;
  if (stage === 'mail_from') return 'sender_rejected';
  if (stage === 'helo' && reply.code >= 500) return 'helo_rejected';
  if (status?.subject === 7 || POLICY_TEXT.test(text) || /reputation/i.test(text)) return 'blocked_by_policy';
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
