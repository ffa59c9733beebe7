import { describe, expect, it } from 'vitest';
import { classifyRcptReply } from './classify-reply.js';
import { enhancedStatus, ReplyReader, type SmtpReply } from './reply.js';

function reply(code: number, text: string): SmtpReply {
  return { code, enhanced: enhancedStatus(code, text), lines: [text] };
}

describe('ReplyReader', () => {
  it('reads a multi-line reply to its last line', () => {
    const reader = new ReplyReader();
    expect(reader.push('250-mx.test greets you')).toBeUndefined();
    expect(reader.push('250-PIPELINING')).toBeUndefined();
    expect(reader.push('250 STARTTLS')).toEqual({
      code: 250,
      enhanced: undefined,
      lines: ['mx.test greets you', 'PIPELINING', 'STARTTLS'],
    });
    expect(reader.push('220 again')).toMatchObject({ code: 220, lines: ['again'] });
  });

  it('accepts a bare code line and reads enhanced status codes of the same class only', () => {
    expect(new ReplyReader().push('250')).toMatchObject({ code: 250, lines: [''] });
    expect(enhancedStatus(550, '5.1.1 <x@y> unknown')).toBe('5.1.1');
    expect(enhancedStatus(550, '4.1.1 mismatch')).toBeUndefined();
    expect(enhancedStatus(450, '4.2.0 Greylisted')).toBe('4.2.0');
    expect(enhancedStatus(250, '2.1.5Ok')).toBeUndefined();
  });

  it('rejects lines that are not SMTP and code changes mid-reply', () => {
    expect(() => new ReplyReader().push('HTTP/1.1 400 Bad Request')).toThrow('not an SMTP reply line');
    const reader = new ReplyReader();
    reader.push('250-first');
    expect(() => reader.push('550 second')).toThrow('reply code changed from 250 to 550');
  });
});

describe('classifyRcptReply', () => {
  it.each([
    [250, '2.1.5 Ok', 'accepted'],
    [251, 'User not local; will forward', 'accepted'],
    [550, '5.1.1 <a@b.test>: Recipient address rejected: User unknown', 'mailbox_not_found'],
    [550, '5.1.10 RESOLVER.ADR.RecipientNotFound', 'mailbox_not_found'],
    [550, '5.2.1 The email account that you tried to reach is disabled', 'mailbox_disabled'],
    [552, '5.2.2 Mailbox full', 'mailbox_full'],
    [554, '5.7.1 Service unavailable; Client host blocked using Spamhaus', 'dnsbl_listed'],
    // Policy wins over the word "user" in the text: structure first.
    [550, '5.7.1 User unknown or blocked', 'blocked_by_policy'],
    [450, '4.2.0 <a@b.test>: Recipient address rejected: Greylisted, see http://postgrey', 'greylisted'],
    [451, '4.7.1 Please try again later', 'greylisted'],
    [452, '4.5.3 Too many recipients', 'too_many_recipients'],
    [452, 'Too many recipients received this hour', 'too_many_recipients'],
    [452, '4.2.2 Mailbox full, try later', 'temporary_failure'],
    [421, '4.4.2 Connection timed out', 'temporary_failure'],
    // No enhanced code: text fallback; with no text that says anything either, unclear.
    [550, 'No such user here', 'mailbox_not_found'],
    [550, 'Message rejected due to local policy', 'blocked_by_policy'],
    // A bare 5xx without a status or a recognisable text says nothing certain (RFC 5321 §4.2.2).
    [550, 'Requested action not taken', 'rejected_unclear'],
    [554, 'Transaction failed', 'rejected_unclear'],
    [552, 'over quota', 'mailbox_full'],
    [501, 'Syntax error in parameters', 'rejected_unclear'],
  ] as const)('%i %s → %s', (code, text, outcome) => {
    expect(classifyRcptReply(reply(code, text))).toBe(outcome);
  });

  it('never calls a 4xx reply a missing mailbox, whatever its text says', () => {
    for (const text of ['4.1.1 User unknown', 'No such user', '4.2.1 disabled']) {
      expect(classifyRcptReply(reply(450, text))).not.toBe('mailbox_not_found');
      expect(classifyRcptReply(reply(450, text))).not.toBe('mailbox_disabled');
    }
  });
});
