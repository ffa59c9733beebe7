import type { SmtpReplySpec } from './script.js';

/** One reply as sent: its code and the text of each line (without the code and separator). */
export interface SmtpReply {
  /** The three-digit reply code. */
  readonly code: number;
  /** The text of every line, in order; several lines were sent as `250-...` continuation lines. */
  readonly lines: readonly string[];
}

/** Builds a reply from a code and one or more lines of text. */
export function reply(code: number, ...lines: string[]): SmtpReply {
  return { code, lines: lines.length > 0 ? lines : [''] };
}

/** Turns a script's literal reply into a reply. */
export function fromSpec(spec: SmtpReplySpec): SmtpReply {
  return { code: spec.code, lines: typeof spec.text === 'string' ? [spec.text] : [...spec.text] };
}

/** The wire form: `250-first\r\n250-middle\r\n250 last\r\n` (RFC 5321 §4.2.1). */
export function formatReply(r: SmtpReply): string {
  const last = r.lines.length - 1;
  return r.lines.map((line, i) => `${`${r.code}${i === last ? ' ' : '-'}${line}`.trimEnd()}\r\n`).join('');
}

// Standard texts, modelled on Postfix so verifiers see the wording they meet in the wild.
export const replies = {
  ok: reply(250, '2.0.0 Ok'),
  mailOk: reply(250, '2.1.0 Ok'),
  rcptOk: reply(250, '2.1.5 Ok'),
  bye: reply(221, '2.0.0 Bye'),
  startTls: reply(220, '2.0.0 Ready to start TLS'),
  tlsUnavailable: reply(454, '4.7.0 TLS not available due to local problem'),
  tlsActive: reply(554, '5.5.1 Error: TLS already active'),
  tlsRequired: reply(530, '5.7.0 Must issue a STARTTLS command first'),
  unrecognized: reply(502, '5.5.2 Error: command not recognized'),
  badSyntax: reply(500, '5.5.2 Error: bad syntax'),
  lineTooLong: reply(500, '5.5.0 Error: line too long'),
  vrfyDisabled: reply(502, '5.5.1 VRFY command is disabled'),
  needHelo: reply(503, '5.5.1 Error: send HELO/EHLO first'),
  needMail: reply(503, '5.5.1 Error: need MAIL command'),
  nestedMail: reply(503, '5.5.1 Error: nested MAIL command'),
  badSequence: reply(503, '5.5.1 Error: bad sequence of commands'),
  ehloSyntax: reply(501, '5.5.4 Syntax: EHLO hostname'),
  heloSyntax: reply(501, '5.5.4 Syntax: HELO hostname'),
  mailSyntax: reply(501, '5.5.4 Syntax: MAIL FROM:<address>'),
  rcptSyntax: reply(501, '5.1.3 Bad recipient address syntax'),
  tooManyRcpts: reply(452, '4.5.3 Error: too many recipients'),
} as const;

/** 220 banner, possibly multi-line. */
export const banner = (lines: readonly string[]): SmtpReply => reply(220, ...lines);
export const busy = (hostname: string) =>
  reply(421, `4.3.2 ${hostname} Service not available, closing transmission channel`);
export const greetingBlocked = (hostname: string) =>
  reply(554, `5.7.1 ${hostname} Client host rejected: Access denied`);
export const senderBlocked = (sender: string) =>
  reply(554, `5.7.1 <${sender}>: Sender address rejected: Access denied`);
export const dataRefused = (hostname: string) => reply(554, `5.3.2 ${hostname} testkit never accepts mail`);

const rcptRejected = (code: number, status: string, rcpt: string, why: string) =>
  reply(code, `${status} <${rcpt}>: Recipient address rejected: ${why}`);
export const unknownUser = (rcpt: string) =>
  rcptRejected(550, '5.1.1', rcpt, 'User unknown in virtual mailbox table');
export const mailboxDisabled = (rcpt: string) => rcptRejected(550, '5.2.1', rcpt, 'Mailbox disabled');
export const mailboxFull = (rcpt: string) => rcptRejected(552, '5.2.2', rcpt, 'Mailbox full');
export const rcptBlocked = (rcpt: string) => rcptRejected(554, '5.7.1', rcpt, 'Access denied');
export const greylisted = (rcpt: string) =>
  rcptRejected(450, '4.2.0', rcpt, 'Greylisted, please try again later');
