import { describe, expect, test, vi } from 'vitest';
import { type SmtpFleet, startSmtpServer } from './fleet.js';
import { openTransaction, SmtpTestClient } from './testing-client.js';
import { closedAfterEach } from './testing-fleets.js';

const server = closedAfterEach(startSmtpServer);

/** One RCPT in a fresh session; returns the reply as `code text`. */
async function rcpt(fleet: SmtpFleet, address: string, sender?: string): Promise<string> {
  const client = await openTransaction(fleet.port, '127.0.0.1', sender);
  try {
    const reply = await client.command(`RCPT TO:<${address}>`);
    return `${reply.code} ${reply.lines.join('\n')}`;
  } finally {
    client.destroy();
  }
}

describe('RCPT TO behaviours', () => {
  test('a known mailbox is accepted, an unscripted one gets 550 5.1.1 by default', async () => {
    const fleet = await server({ script: { mailboxes: { 'alice@example.test': 'accept' } } });
    expect(await rcpt(fleet, 'alice@example.test')).toBe('250 2.1.5 Ok');
    expect(await rcpt(fleet, 'ALICE@Example.TEST')).toBe('250 2.1.5 Ok');
    expect(await rcpt(fleet, 'bob@example.test')).toBe(
      '550 5.1.1 <bob@example.test>: Recipient address rejected: User unknown in virtual mailbox table',
    );
  });

  test('the default for unscripted mailboxes is configurable', async () => {
    const fleet = await server({
      script: { defaultRcpt: 'accept', mailboxes: { 'gone@x.test': 'unknown' } },
    });
    expect(await rcpt(fleet, 'anyone@x.test')).toBe('250 2.1.5 Ok');
    expect(await rcpt(fleet, 'gone@x.test')).toMatch(/^550 5\.1\.1 /);
  });

  test('mailbox full is 552 5.2.2 and disabled is 550 5.2.1', async () => {
    const fleet = await server({
      script: { mailboxes: { 'full@x.test': 'full', 'old@x.test': 'disabled' } },
    });
    expect(await rcpt(fleet, 'full@x.test')).toBe(
      '552 5.2.2 <full@x.test>: Recipient address rejected: Mailbox full',
    );
    expect(await rcpt(fleet, 'old@x.test')).toBe(
      '550 5.2.1 <old@x.test>: Recipient address rejected: Mailbox disabled',
    );
  });

  test('a policy block at RCPT is 554 5.7.1', async () => {
    const fleet = await server({ script: { mailboxes: { 'vip@x.test': 'blocked' } } });
    expect(await rcpt(fleet, 'vip@x.test')).toBe(
      '554 5.7.1 <vip@x.test>: Recipient address rejected: Access denied',
    );
  });

  test('a catch-all domain accepts random addresses; mailbox entries still win', async () => {
    const fleet = await server({
      script: { domains: { 'catchall.test': 'accept' }, mailboxes: { 'full@catchall.test': 'full' } },
    });
    const random = `zz${Math.random().toString(36).slice(2)}@catchall.test`;
    expect(await rcpt(fleet, random)).toBe('250 2.1.5 Ok');
    expect(await rcpt(fleet, 'full@catchall.test')).toMatch(/^552 5\.2\.2 /);
    expect(await rcpt(fleet, 'someone@other.test')).toMatch(/^550 5\.1\.1 /);
  });

  test('a custom reply is sent verbatim, multi-line included', async () => {
    const fleet = await server({
      script: {
        mailboxes: {
          'rate@x.test': { code: 451, text: '4.7.1 Rate limited, slow down' },
          'multi@x.test': { code: 550, text: ['5.1.1 first line', '5.1.1 second line'] },
        },
      },
    });
    expect(await rcpt(fleet, 'rate@x.test')).toBe('451 4.7.1 Rate limited, slow down');
    expect(await rcpt(fleet, 'multi@x.test')).toBe('550 5.1.1 first line\n5.1.1 second line');
  });

  test('a 421 reply at RCPT closes the connection after it is sent', async () => {
    const fleet = await server({
      script: { defaultRcpt: { code: 421, text: '4.7.0 Too many connections, slow down' } },
    });
    const client = await openTransaction(fleet.port);
    expect(await client.command('RCPT TO:<a@x.test>')).toEqual({
      code: 421,
      lines: ['4.7.0 Too many connections, slow down'],
    });
    await client.waitClosed();
    await fleet.waitForIdle();
    expect(fleet.sessions[0]?.end).toBe('closed-by-server');
  });

  test('greylisting answers 450 4.2.0 until the delay has passed, then accepts a new attempt', async () => {
    const fleet = await server({ script: { domains: { 'grey.test': { greylist: { delayMs: 300 } } } } });
    // The greylist reads Date.now(): only Date is faked, so sockets and timers run as usual and
    // the delay passes when the test says so.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const first = Date.now();
      expect(await rcpt(fleet, 'bob@grey.test')).toBe(
        '450 4.2.0 <bob@grey.test>: Recipient address rejected: Greylisted, please try again later',
      );
      // An early retry is still greylisted, and a different sender is a new triplet.
      vi.setSystemTime(first + 299);
      expect(await rcpt(fleet, 'bob@grey.test')).toMatch(/^450 4\.2\.0 /);
      expect(await rcpt(fleet, 'bob@grey.test', 'other@verifier.test')).toMatch(/^450 4\.2\.0 /);
      vi.setSystemTime(first + 300);
      expect(await rcpt(fleet, 'bob@grey.test')).toBe('250 2.1.5 Ok');
      // The other sender's clock started later, so it is still greylisted.
      expect(await rcpt(fleet, 'bob@grey.test', 'other@verifier.test')).toMatch(/^450 4\.2\.0 /);
    } finally {
      vi.useRealTimers();
    }
    fleet.resetGreylist();
    expect(await rcpt(fleet, 'bob@grey.test')).toMatch(/^450 4\.2\.0 /);
  });

  test('greylisting can hand over to another action once passed', async () => {
    const fleet = await server({
      script: { mailboxes: { 'gone@grey.test': { greylist: { delayMs: 0, afterwards: 'unknown' } } } },
    });
    expect(await rcpt(fleet, 'gone@grey.test')).toMatch(/^450 4\.2\.0 /);
    expect(await rcpt(fleet, 'gone@grey.test')).toMatch(/^550 5\.1\.1 /);
  });

  test('RCPTs beyond the per-session maximum get 452 4.5.3, even after RSET', async () => {
    const fleet = await server({ script: { defaultRcpt: 'accept', maxRcptsPerSession: 2 } });
    const client = await openTransaction(fleet.port);
    expect((await client.command('RCPT TO:<a@x.test>')).code).toBe(250);
    expect((await client.command('RSET')).code).toBe(250);
    expect((await client.command('MAIL FROM:<>')).code).toBe(250);
    expect((await client.command('RCPT TO:<b@x.test>')).code).toBe(250);
    const third = await client.command('RCPT TO:<c@x.test>');
    expect(third).toEqual({ code: 452, lines: ['4.5.3 Error: too many recipients'] });
    client.destroy();
    // A new session starts counting again.
    expect(await rcpt(fleet, 'd@x.test')).toBe('250 2.1.5 Ok');
  });

  test('DATA is always refused with 554 and recorded', async () => {
    const fleet = await server({ script: { defaultRcpt: 'accept' } });
    const client = await openTransaction(fleet.port);
    expect((await client.command('RCPT TO:<a@x.test>')).code).toBe(250);
    const data = await client.command('DATA');
    expect(data.code).toBe(554);
    expect(data.lines[0]).toMatch(/^5\.3\.2 /);
    await client.command('QUIT');
    await client.waitClosed();
    await fleet.waitForIdle();
    expect(fleet.sessions[0]?.dataAttempted).toBe(true);
    expect(fleet.sessions[0]?.replies.some((r) => r.code === 354)).toBe(false);
  });

  test('sequence and syntax errors get the usual 5xx replies', async () => {
    const fleet = await server({ script: { defaultRcpt: 'accept' } });
    const client = await SmtpTestClient.connect(fleet.port, '127.0.0.1');
    await client.read();
    expect((await client.command('MAIL FROM:<a@b.test>')).code).toBe(503);
    expect((await client.command('EHLO client.test')).code).toBe(250);
    expect((await client.command('RCPT TO:<a@x.test>')).code).toBe(503);
    expect((await client.command('MAIL FROM:a@b.test')).code).toBe(250);
    expect((await client.command('MAIL FROM:<a@b.test>')).code).toBe(503);
    expect((await client.command('RCPT TO:<>')).code).toBe(501);
    expect((await client.command('RCPT TO: <spaced@x.test>')).code).toBe(250);
    expect((await client.command('VRFY a@x.test')).code).toBe(502);
    expect((await client.command('XYZZY')).code).toBe(502);
    client.destroy();
  });
});
