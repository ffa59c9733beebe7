import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  explainRcptReply,
  PERMANENT_REPLY_RULES,
  type RcptOutcome,
  TEMPORARY_REPLY_RULES,
} from './classify-reply.js';
import { ReplyReader, type SmtpReply } from './reply.js';

function parse(...lines: string[]): SmtpReply {
  const reader = new ReplyReader();
  let reply: SmtpReply | undefined;
  for (const line of lines) reply = reader.push(line);
  if (!reply) throw new Error(`incomplete reply ${lines.join(' / ')}`);
  return reply;
}

// One reply per row of each precedence table: the row that must decide it, and what it decides.
// Each reply would be decided differently by a later row, so the order is what is tested.
const PERMANENT_ROWS: ReadonlyArray<readonly [string, string, RcptOutcome]> = [
  ['provider_reply', '550 5.4.1 Recipient address rejected: Access denied', 'mailbox_not_found'],
  ['too_many_recipients', '552 Too many recipients', 'too_many_recipients'],
  // The status says no such user; the text says our IP sent too much.
  [
    'about_us_text',
    '550 5.1.1 <a@example.com> - 203.0.113.2 has sent to too many recipients this hour. IB607',
    'rate_limited',
  ],
  ['about_us_status', '553 5.1.8 <a@example.com>: User unknown', 'sender_rejected'],
  ['authentication_code', '530 5.7.0 User unknown', 'authentication_required'],
  ['not_about_the_recipient_code', '503 All RCPT commands were rejected: unknown user', 'rejected_unclear'],
  // A mailbox status, a fault of the receiving system (Postfix's own routing loop).
  [
    'system_fault_text',
    '550 5.1.1 <admin@abit.dev>: Recipient address rejected: undeliverable address: mail for abit.dev loops back to myself',
    'rejected_unclear',
  ],
  // A policy status, a mailbox text (Sun Java System Messaging Server).
  ['mailbox_text', '550 5.7.1 550 User Unknown: sabineko@example.org', 'mailbox_not_found'],
  // A mailbox status, a policy text (Facebook).
  ['policy_text', '550 5.1.1 RCP-P2 Refused due to recipient preferences', 'blocked_by_policy'],
  ['status', '550 5.1.1 Address rejected kijitora@example.co.jp', 'mailbox_not_found'],
  ['keywords', '550 Unrouteable address', 'mailbox_not_found'],
  ['unclear', '550 Requested action not taken: mailbox unavailable', 'rejected_unclear'],
];

const TEMPORARY_ROWS: ReadonlyArray<readonly [string, string, RcptOutcome]> = [
  ['too_many_recipients', '452 4.5.3 Too many recipients', 'too_many_recipients'],
  // An explicit x.2.2 outranks the rate-limit words beside it.
  ['full_for_now', '452 4.2.2 Mailbox full: too many messages, try again later', 'temporary_failure'],
  [
    'about_us_text',
    '451 4.7.1 Client host rejected: cannot find your reverse hostname',
    'reverse_dns_failed',
  ],
  ['about_us_status', '450 4.7.25 Try again', 'reverse_dns_failed'],
  [
    'not_allowlisted',
    '421 4.7.0 IP not in whitelist for RCPT domain, closing connection.',
    'blocked_by_policy',
  ],
  ['policy_text', '452 <a@zoho.com> Mailbox delivery restricted by policy error', 'blocked_by_policy'],
  ['exchange_throttling', '451 4.7.500 Server busy. Please try again later', 'rate_limited'],
  ['greylisting_text', '450 4.2.0 <a@example.com>: Recipient address rejected: Greylisted', 'greylisted'],
  ['server_trouble', '451 System(u) busy, try again later.', 'temporary_failure'],
  ['retry_later', '451 Please try again later', 'greylisted'],
  ['temporary', '450 4.1.1 <a@example.com>: Recipient address rejected: User unknown', 'temporary_failure'],
];

describe('the precedence tables, row by row', () => {
  it('has a test reply for every row, in the order of the tables', () => {
    expect(PERMANENT_ROWS.map(([id]) => id)).toEqual(PERMANENT_REPLY_RULES.map(({ id }) => id));
    expect(TEMPORARY_ROWS.map(([id]) => id)).toEqual(TEMPORARY_REPLY_RULES.map(({ id }) => id));
  });

  it.each([...PERMANENT_ROWS, ...TEMPORARY_ROWS])('%s decides %s', (rule, line, outcome) => {
    const code = Number(line.slice(0, 3));
    expect(explainRcptReply(parse(line))).toEqual({
      outcome,
      rule,
      table: code >= 500 ? 'permanent' : 'temporary',
    });
  });

  it('answers the README example', () => {
    const reply = { code: 550, enhanced: '5.7.1', lines: ['5.7.1 550 User Unknown: someone@example.org'] };
    expect(explainRcptReply(reply)).toEqual({
      outcome: 'mailbox_not_found',
      rule: 'mailbox_text',
      table: 'permanent',
    });
  });

  it('reads 2xx as accepted and a code outside 2xx–5xx as unclear, without a table', () => {
    expect(explainRcptReply(parse('250 2.1.5 Ok'))).toEqual({ outcome: 'accepted', rule: 'accepted' });
    expect(explainRcptReply(parse('354 go ahead'))).toEqual({
      outcome: 'rejected_unclear',
      rule: 'not_smtp',
    });
  });
});

describe('reading texts the way servers write them', () => {
  it('is not defeated by typographic apostrophes, no-break spaces or full-width letters', () => {
    const yahoo = '554 delivery error: dd This user doesn’t have a yahoo.com account (a@yahoo.com) [0]';
    expect(explainRcptReply(parse(yahoo)).outcome).toBe('mailbox_not_found');
    expect(explainRcptReply(parse('550 5.2.2 Mailbox\u00A0full')).outcome).toBe('mailbox_full');
    expect(explainRcptReply(parse('550 User\u2003unknown')).outcome).toBe('mailbox_not_found');
    expect(explainRcptReply(parse('550 Ｕｓｅｒ ｕｎｋｎｏｗｎ')).outcome).toBe('mailbox_not_found');
    expect(
      explainRcptReply(parse('550 The email account that you tried to reach doesn’t exist')).outcome,
    ).toBe('mailbox_not_found');
  });

  it('ignores what an address in the reply spells', () => {
    expect(
      explainRcptReply(parse('552 Too much mail data recipient-mailbox-is-full@docomo.ne.jp')).outcome,
    ).toBe('rejected_unclear');
    expect(explainRcptReply(parse('550 Message from spammer@example.com')).outcome).toBe('rejected_unclear');
  });

  it('reads the legacy formats: qmail trailing codes, sendmail 553 5.3.0, 551', () => {
    expect(explainRcptReply(parse('550 sorry, no mailbox here by that name. (#5.1.1)')).outcome).toBe(
      'mailbox_not_found',
    );
    expect(explainRcptReply(parse("553 sorry, that recipient doesn't exist (#5.7.1)")).outcome).toBe(
      'mailbox_not_found',
    );
    expect(
      explainRcptReply(parse('553 5.3.0 <a@example.com>... Recipient address no longer exists')).outcome,
    ).toBe('mailbox_not_found');
    expect(explainRcptReply(parse('553 5.3.0 <a@example.com>... Address does not exist')).outcome).toBe(
      'mailbox_not_found',
    );
    // 551 "user not local" says where the mailbox is not, not that it does not exist.
    expect(explainRcptReply(parse('551 User not local; please try <a@example.net>')).outcome).toBe(
      'rejected_unclear',
    );
    expect(explainRcptReply(parse('551 not our customer')).outcome).toBe('rejected_unclear');
    expect(explainRcptReply(parse('551 <a@example.net> is a deactivated mailbox')).outcome).toBe(
      'mailbox_disabled',
    );
  });
});

describe('docs/email-verifier.md', () => {
  // The rules in full are in docs/email-verifier.md (the README links there).
  const readme = readFileSync(new URL('../../../../docs/email-verifier.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## Reading replies'));

  it.each([
    ['5xx', PERMANENT_REPLY_RULES],
    ['4xx', TEMPORARY_REPLY_RULES],
  ] as const)('lists the %s precedence table row by row, in the order the code applies it', (name, rules) => {
    const table = section.slice(section.indexOf(`**${name}**`));
    let previous = -1;
    for (const [index, { id }] of rules.entries()) {
      const position = table.indexOf(`| ${index + 1} | \`${id}\` |`);
      expect(position, id).toBeGreaterThan(previous);
      previous = position;
    }
  });
});
