import { describe, expect, it } from 'vitest';
import { classifySessionRefusal, type ReplyDetail, withSyntheticEvidence } from './classify-reply.js';
import type { SmtpReply } from './reply.js';
import { enhancedStatus } from './reply.js';

const reply = (code: number, text: string): SmtpReply => ({
  code,
  enhanced: enhancedStatus(code, text),
  lines: [text],
});
const detail = (code: number, enhanced: string | null, message: string): ReplyDetail => ({
  code,
  enhanced_status: enhanced,
  message,
});

describe('withSyntheticEvidence: the catch-all probe as evidence', () => {
  const refusal = (address: string) => `<${address}>: Recipient address rejected: Access denied`;
  const real = { outcome: 'blocked_by_policy', detail: detail(554, '5.7.1', refusal('alice@example.com')) };

  it('reads the same non-mailbox refusal for the real and the synthetic recipient as a sender refusal', () => {
    const synthetic = detail(554, '5.7.1', refusal('x7q2-synthetic@example.com'));
    expect(withSyntheticEvidence(real, synthetic)).toEqual({ ...real, outcome: 'sender_rejected' });
    const unclear = { outcome: 'rejected_unclear', detail: detail(550, null, 'Rejected alice@example.com') };
    expect(withSyntheticEvidence(unclear, detail(550, null, 'Rejected zz9@example.com')).outcome).toBe(
      'sender_rejected',
    );
  });

  it('keeps the outcome when the synthetic recipient was told something else, or nothing', () => {
    expect(withSyntheticEvidence(real, undefined)).toBe(real);
    expect(withSyntheticEvidence(real, detail(550, '5.1.1', 'User unknown'))).toBe(real);
    expect(withSyntheticEvidence(real, detail(554, '5.7.2', refusal('zz9@example.com')))).toBe(real);
    expect(withSyntheticEvidence(real, detail(550, '5.7.1', refusal('zz9@example.com')))).toBe(real);
    expect(withSyntheticEvidence(real, detail(554, '5.7.1', 'Relay access denied'))).toBe(real);
  });

  it('never touches an answer about the mailbox, a temporary one, or one that already names our side', () => {
    const same = (outcome: string, code: number) => ({ outcome, detail: detail(code, null, 'Same words') });
    for (const [outcome, code] of [
      ['mailbox_not_found', 550],
      ['mailbox_disabled', 550],
      ['mailbox_full', 552],
      ['accepted', 250],
      ['greylisted', 450],
      ['temporary_failure', 451],
      ['blocked_by_policy', 450],
      ['dnsbl_listed', 554],
    ] as const) {
      const result = same(outcome, code);
      expect(withSyntheticEvidence(result, detail(code, null, 'Same words')).outcome, outcome).toBe(outcome);
    }
  });
});

describe('classifySessionRefusal: a refusal before any RCPT is about us', () => {
  it.each([
    [
      'mail_from',
      554,
      '5.7.1 <probe@verifier.example>: Sender address rejected: Access denied',
      'sender_rejected',
    ],
    ['mail_from', 550, '5.7.1 Access denied', 'sender_rejected'],
    ['mail_from', 550, 'Rejected', 'sender_rejected'],
    ['mail_from', 451, '4.7.1 Please try again later', 'greylisted'],
    ['mail_from', 452, '4.3.1 Insufficient system storage', 'temporary_failure'],
    ['mail_from', 452, '4.5.3 Too many recipients', 'temporary_failure'],
    ['helo', 550, '5.7.1 Access denied', 'helo_rejected'],
    [
      'greeting',
      554,
      '5.7.1 Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org',
      'dnsbl_listed',
    ],
    ['greeting', 554, '5.7.1 Access denied', 'blocked_by_policy'],
    ['greeting', 554, 'No SMTP service here', 'unreachable'],
    ['greeting', 421, '4.3.2 Service not available, closing transmission channel', 'temporary_failure'],
    ['starttls', 454, '4.7.0 TLS not available due to local problem', 'temporary_failure'],
  ] as const)('%s %i %s → %s', (stage, code, text, outcome) => {
    expect(classifySessionRefusal(reply(code, text), stage)).toBe(outcome);
  });
});
