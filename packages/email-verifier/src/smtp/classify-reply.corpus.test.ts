import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { classify } from '../classify/classify.js';
import { classifyRcptReply, classifySessionRefusal } from './classify-reply.js';
import { ReplyReader, type SmtpReply } from './reply.js';
import { ABOUT_US_TEXTS, PROVIDER_MAILBOX_REPLIES } from './reply-patterns.js';

interface LabelledReply {
  /** The receiver or mail server that said it, as far as the source tells. */
  from: string;
  stage: 'rcpt' | 'mail' | 'helo' | 'greeting';
  reply: string[];
  state: string;
  reason: string | null;
  /** Key into `sources`; the documentation-based records use their `from`. */
  source?: string;
  /** The file of the source the reply comes from. */
  ref?: string;
  /** A known misreading of the reason (never of the state), with why it is left. */
  misread?: string;
  /** Labelled and measured before the rules were corrected against it (figures in the README). */
  heldout?: boolean;
}

const corpus = JSON.parse(
  readFileSync(new URL('../../test-data/smtp-replies.json', import.meta.url), 'utf8'),
) as { sources: Record<string, string>; replies: LabelledReply[] };
const sourceOf = (entry: LabelledReply) => entry.source ?? entry.from;

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
  it('holds at least 600 distinct replies from at least 6 independent sources, each documented', () => {
    expect(corpus.replies.length).toBeGreaterThanOrEqual(600);
    const distinct = new Set(
      corpus.replies.map((entry) => `${entry.stage} ${withoutAddresses(entry.reply.join(' '))}`),
    );
    expect(distinct.size).toBe(corpus.replies.length);
    const independent = [
      'sisimai',
      'smtp-field-manual',
      'cwsmailbouncehandler',
      'phpmailer-bmh',
      'bounceparser',
      'issues',
    ];
    for (const source of independent) {
      expect(corpus.replies.filter((entry) => entry.source === source).length, source).toBeGreaterThanOrEqual(
        5,
      );
    }
    const named = ['gmail', 'outlook', 'yahoo', 'icloud', 'postfix', 'exim', 'sendmail', 'exchange', 'qmail'];
    for (const from of [...named, 'proofpoint', 'mimecast']) {
      expect(corpus.replies.filter((entry) => entry.from === from).length, from).toBeGreaterThanOrEqual(5);
    }
    for (const entry of corpus.replies) {
      expect(corpus.sources[sourceOf(entry)], sourceOf(entry)).toBeTruthy();
      if (entry.source !== undefined) expect(entry.ref, entry.reply[0]).toBeTruthy();
    }
  });

  it.each(
    corpus.replies.map(
      (entry) =>
        [`${sourceOf(entry)} ${entry.from} ${entry.stage}: ${entry.reply.join(' / ')}`, entry] as const,
    ),
  )('%s', (_name, entry) => {
    const verdict = verdictOf(entry);
    if (entry.misread === undefined) {
      expect(verdict).toEqual({ state: entry.state, reason: entry.reason });
    } else {
      // A documented misreading of the reason: the state must still be right, and the mark goes
      // once the reason is read right too.
      expect(verdict.state).toBe(entry.state);
      expect(verdict.reason, 'read right now: remove its `misread` note').not.toBe(entry.reason);
    }
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

/**
 * A reply with its addresses taken out and the numbers after its code and status zeroed (IPs,
 * queue ids), so two replies that differ only in them count once.
 */
function withoutAddresses(text: string): string {
  const lower = text.toLowerCase();
  const head = /^\d{3}[ -](?:[245]\.\d+\.\d+ )?/.exec(lower)?.[0] ?? '';
  const rest = lower
    .slice(head.length)
    .replace(/<[^>]*>|\S+@\S+/g, '<>')
    .replace(/\d+/g, '0');
  return `${head}${rest}`.replace(/\s+/g, ' ');
}

describe('reply reading on the corpus, per source (the figures in the README)', () => {
  const MAILBOX = new Set(['mailbox_not_found', 'mailbox_disabled', 'mailbox_full']);
  interface Figures {
    replies: number;
    notFound: number;
    notFoundRead: number;
    readDead: number;
    readDeadRight: number;
    nonMailboxReadDead: number;
  }
  const figures = new Map<string, Figures>();
  const add = (key: string, entry: LabelledReply, read: { state: string; reason: string | null }) => {
    const row = figures.get(key) ?? {
      replies: 0,
      notFound: 0,
      notFoundRead: 0,
      readDead: 0,
      readDeadRight: 0,
      nonMailboxReadDead: 0,
    };
    row.replies += 1;
    if (entry.reason === 'mailbox_not_found') {
      row.notFound += 1;
      if (read.reason === 'mailbox_not_found') row.notFoundRead += 1;
    }
    if (read.state === 'undeliverable') {
      row.readDead += 1;
      if (entry.state === 'undeliverable') row.readDeadRight += 1;
      if (!MAILBOX.has(entry.reason ?? '')) row.nonMailboxReadDead += 1;
    }
    figures.set(key, row);
  };
  for (const entry of corpus.replies) {
    const read = verdictOf(entry);
    const key = entry.source === undefined ? 'provider documentation' : entry.source;
    add(key, entry, read);
    add('all', entry, read);
  }
  const ratio = (part: number, whole: number) => (whole === 0 ? '–' : (part / whole).toFixed(3));

  it('prints recall of mailbox_not_found, precision of undeliverable and non-mailbox refusals read as dead', () => {
    const lines = [
      'source | replies | not-found recall | undeliverable precision | non-mailbox read as dead',
    ];
    for (const [key, row] of figures) {
      lines.push(
        `${key} | ${row.replies} | ${ratio(row.notFoundRead, row.notFound)} (${row.notFoundRead}/${row.notFound}) | ${ratio(row.readDeadRight, row.readDead)} (${row.readDeadRight}/${row.readDead}) | ${row.nonMailboxReadDead}`,
      );
    }
    console.log(lines.join('\n'));
    const all = figures.get('all') as Figures;
    // Every reply the corpus labels as a sender, policy, reputation or system refusal stays alive.
    expect(all.nonMailboxReadDead).toBe(0);
    expect(all.readDeadRight / all.readDead).toBe(1);
    // A missing mailbox is read as one at least 97% of the time overall, and 90% in every source
    // with at least 10 of them (what is missed becomes unknown, never a wrong verdict).
    expect(all.notFoundRead / all.notFound).toBeGreaterThanOrEqual(0.97);
    for (const [key, row] of figures) {
      if (row.notFound >= 10) expect(row.notFoundRead / row.notFound, key).toBeGreaterThanOrEqual(0.9);
    }
  });
});

describe('docs/email-verifier.md describes the rules the code applies', () => {
  // The rules in full are in docs/email-verifier.md (the README links there).
  const readme = readFileSync(new URL('../../../../docs/email-verifier.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## Reading replies'));

  it('names every reason about our side of the session in its table, in the order they are tried', () => {
    const table = section.slice(section.indexOf('Texts about our side of the session'));
    // A reason may have more than one row (sender verification first, other sender refusals last):
    // each row is looked for after the previous one.
    let previous = -1;
    for (const [, reason] of ABOUT_US_TEXTS) {
      const position = table.indexOf(`| \`${reason}\` |`, previous + 1);
      expect(position, reason).toBeGreaterThan(previous);
      previous = position;
    }
  });

  it('names every provider reply read as a mailbox answer, with its status', () => {
    for (const [status] of PROVIDER_MAILBOX_REPLIES) {
      if (status !== null) expect(section, status).toContain(status);
    }
    expect(section).toContain("dd This user doesn't have a yahoo.com account");
  });
});

describe('the enhanced status and the words beside it', () => {
  const reply = (code: number, text: string): SmtpReply => parse([`${code} ${text}`]);
  // Statuses about our side (sender address, authentication): whatever mailbox words come with
  // them, they never make a mailbox dead.
  it.each(['5.1.7', '5.1.8', '5.7.26', '5.7.25', '5.7.27'])(
    '%s with "user unknown" wording is never a dead mailbox',
    (status) => {
      for (const words of ['<user@example.com>: User unknown', 'No such user', 'mailbox not found']) {
        for (const code of [550, 553, 554]) {
          expect(
            classifyRcptReply(reply(code, `${status} ${words}`)),
            `${code} ${status} ${words}`,
          ).not.toMatch(/^mailbox_(not_found|disabled)$/);
        }
      }
    },
  );

  it('lets an unambiguous mailbox wording beat a status that says something else', () => {
    expect(classifyRcptReply(reply(550, '5.7.1 550 User Unknown: sabineko@example.org'))).toBe(
      'mailbox_not_found',
    );
    expect(classifyRcptReply(reply(550, '5.5.0 Adresse destinataire invalide. Invalid recipient.'))).toBe(
      'mailbox_not_found',
    );
    expect(classifyRcptReply(reply(550, '5.1.1 <a@b.test>... Mailbox Full'))).toBe('mailbox_full');
    expect(classifyRcptReply(reply(550, '5.2.1 <a@b.test>... User Unknown'))).toBe('mailbox_not_found');
    expect(classifyRcptReply(reply(553, '5.3.0 <a@b.test>... Addressee unknown, relay=[192.0.2.1]'))).toBe(
      'mailbox_not_found',
    );
  });

  it('never reads a reply that also gives a policy reason as a dead mailbox', () => {
    expect(classifyRcptReply(reply(550, '5.7.1 User unknown or blocked'))).toBe('blocked_by_policy');
    expect(classifyRcptReply(reply(550, '5.1.1 RCP-P2 Refused due to recipient preferences'))).toBe(
      'blocked_by_policy',
    );
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
