import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { classify } from '../classify/classify.js';
import { classifyRcptReply, classifySessionRefusal } from './classify-reply.js';
import { ReplyReader, type SmtpReply } from './reply.js';
import { ABOUT_US_TEXTS, PROVIDER_MAILBOX_REPLIES } from './reply-patterns.js';

interface LabelledReply {
  from: string;
  stage: 'rcpt' | 'mail' | 'helo' | 'greeting';
  reply: string[];
  state: string;
  reason: string | null;
}

const corpus = JSON.parse(
  readFileSync(new URL('../../test-data/smtp-replies.json', import.meta.url), 'utf8'),
) as { sources: Record<string, string>; replies: LabelledReply[] };

/** Reads the lines as they come on the wire, so multi-line replies are parsed like a session's. */
function parse(lines: readonly string[]): SmtpReply {
  const reader = new ReplyReader();
  for (const [index, line] of lines.entries()) {
    const reply = reader.push(line);
    if (reply) {
      expect(index, 'the reply ends on its last line').toBe(lines.length - 1);
      return reply;
    }
  }
  throw new Error(`not a complete reply: ${JSON.stringify(lines)}`);
}

/** The verdict the verifier gives a mailbox whose probe got this reply. */
function verdictOf(entry: LabelledReply): { state: string; reason: string | null } {
  const reply = parse(entry.reply);
  const stage = entry.stage === 'mail' ? 'mail_from' : entry.stage;
  const outcome = stage === 'rcpt' ? classifyRcptReply(reply) : classifySessionRefusal(reply, stage);
  if (outcome === 'too_many_recipients') return { state: 'retried', reason: outcome };
  const result = classify({
    syntaxValid: true,
    domainStatus: 'accepts_mail',
    probeRequested: true,
    probeOutcome: outcome,
    catchAll: false,
  });
  return { state: result.state, reason: result.reasons[0] ?? null };
}

describe('the labelled corpus of real-world replies (test-data/smtp-replies.json)', () => {
  it('holds at least 150 replies from every receiver the issue names, each source documented', () => {
    expect(corpus.replies.length).toBeGreaterThanOrEqual(150);
    const named = ['gmail', 'outlook', 'yahoo', 'icloud', 'postfix', 'exim', 'sendmail', 'exchange', 'qmail'];
    for (const from of [...named, 'proofpoint', 'mimecast']) {
      expect(corpus.replies.filter((entry) => entry.from === from).length, from).toBeGreaterThanOrEqual(5);
    }
    for (const entry of corpus.replies) expect(corpus.sources[entry.from], entry.from).toBeTruthy();
  });

  it.each(
    corpus.replies.map(
      (entry) => [`${entry.from} ${entry.stage}: ${entry.reply.join(' / ')}`, entry] as const,
    ),
  )('%s', (_name, entry) => {
    expect(verdictOf(entry)).toEqual({ state: entry.state, reason: entry.reason });
  });

  it('exercises every wording rule about our side of the session and every provider reply', () => {
    const texts = corpus.replies.map((entry) => entry.reply.join(' '));
    for (const [pattern, reason] of ABOUT_US_TEXTS) {
      expect(
        texts.some((text) => pattern.test(text)),
        `${reason} ${pattern}`,
      ).toBe(true);
    }
    for (const [status, pattern] of PROVIDER_MAILBOX_REPLIES) {
      expect(
        texts.some((text) => pattern.test(text)),
        `${status} ${pattern}`,
      ).toBe(true);
    }
  });

  it('never calls a 4xx, or a reply about our sender or connection, undeliverable', () => {
    for (const entry of corpus.replies) {
      const code = Number(entry.reply[0]?.slice(0, 3));
      if (code < 500 || entry.stage !== 'rcpt')
        expect(verdictOf(entry).state, entry.reply[0]).not.toBe('undeliverable');
    }
  });
});

describe('the README describes the rules the code applies', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('### Reading replies'));

  it('names every reason about our side of the session in its table, in the order they are tried', () => {
    const table = section.slice(section.indexOf('Texts about our side of the session'));
    const positions = ABOUT_US_TEXTS.map(([, reason]) => table.indexOf(`| \`${reason}\` |`));
    for (const [index, position] of positions.entries()) {
      expect(position, ABOUT_US_TEXTS[index]?.[1]).toBeGreaterThan(-1);
      if (index > 0) expect(position).toBeGreaterThan(positions[index - 1] as number);
    }
  });

  it('names every provider reply read as a mailbox answer, with its status', () => {
    for (const [status] of PROVIDER_MAILBOX_REPLIES) {
      if (status !== null) expect(section, status).toContain(status);
    }
    expect(section).toContain("dd This user doesn't have a yahoo.com account");
  });
});

describe('the enhanced status decides', () => {
  const reply = (code: number, text: string): SmtpReply => parse([`${code} ${text}`]);
  // Statuses RFC 3463 gives to senders, syntax, size, system, network, protocol, content and
  // policy: whatever the words beside them, they never prove a mailbox missing.
  const notAboutTheMailbox = [
    '5.1.0',
    '5.1.3',
    '5.1.7',
    '5.1.8',
    '5.2.3',
    '5.3.4',
    '5.3.0',
    '5.3.2',
    '5.4.0',
    '5.4.4',
    '5.4.7',
    '5.5.0',
    '5.5.2',
    '5.6.0',
    '5.7.0',
    '5.7.1',
    '5.7.26',
  ];
  it.each(notAboutTheMailbox)('%s with "user unknown" wording is never mailbox_not_found', (status) => {
    for (const words of ['<user@example.com>: User unknown', 'No such user', 'mailbox not found']) {
      for (const code of [550, 553, 554]) {
        expect(
          classifyRcptReply(reply(code, `${status} ${words}`)),
          `${code} ${status} ${words}`,
        ).not.toMatch(/^mailbox_(not_found|disabled)$/);
      }
    }
  });

  it('reads x.1.1 and x.1.10 as a missing mailbox and x.7.13 (RFC 7372) as a disabled one', () => {
    expect(classifyRcptReply(reply(550, '5.1.1 Bad destination mailbox address'))).toBe('mailbox_not_found');
    expect(classifyRcptReply(reply(550, '5.1.10 Recipient address has null MX'))).toBe('mailbox_not_found');
    expect(classifyRcptReply(reply(550, '5.7.13 User account disabled'))).toBe('mailbox_disabled');
  });

  it('ignores x.0.0 (it says nothing) and reads the text instead', () => {
    expect(classifyRcptReply(reply(550, '5.0.0 <user@example.com>... User unknown'))).toBe(
      'mailbox_not_found',
    );
    expect(classifyRcptReply(reply(550, '5.0.0 Requested action not taken'))).toBe('rejected_unclear');
  });

  it('reads a qmail-style trailing status, but only of the reply code’s class', () => {
    expect(classifyRcptReply(reply(550, 'sorry, no mailbox here by that name. (#5.1.1)'))).toBe(
      'mailbox_not_found',
    );
    expect(classifyRcptReply(reply(550, 'sorry, that is odd (#4.1.1)'))).toBe('rejected_unclear');
  });

  it('reads the Office 365 5.4.1 wording as no such user only with 5.4.1', () => {
    expect(classifyRcptReply(reply(550, '5.4.1 Recipient address rejected: Access denied'))).toBe(
      'mailbox_not_found',
    );
    expect(classifyRcptReply(reply(554, '5.7.1 <a@b.test>: Recipient address rejected: Access denied'))).toBe(
      'blocked_by_policy',
    );
    expect(classifyRcptReply(reply(550, '5.4.1 Relay Access Denied'))).toBe('relay_denied');
  });
});
