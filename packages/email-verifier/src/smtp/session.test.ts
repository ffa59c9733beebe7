import { type SmtpFleet, startSmtpFleet } from '@svc/testkit';
import { afterEach, expect, it } from 'vitest';
import { testSessionSettings } from '../testing/session-settings.js';
import { openSession } from './session.js';

let fleet: SmtpFleet | undefined;
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
});

it('resumes the TLS session on the next connection to the same MX, saving it a full handshake', async () => {
  fleet = await startSmtpFleet({ hosts: ['127.0.0.2', '127.0.0.3'], script: { defaultRcpt: 'accept' } });
  const settings = testSessionSettings(fleet.port);
  const open = async (address: string) => {
    const opened = await openSession(address, 'mx.resume.test', settings, AbortSignal.timeout(5000));
    if (!('session' in opened)) throw new Error('no session');
    const replies: number[] = [];
    await opened.session.rcptMany(['a@resume.test'], (reply) => replies.push(reply.code));
    await opened.session.close();
    return { tls: opened.session.connection.tls, resumed: opened.session.connection.tlsResumed, replies };
  };
  expect(await open('127.0.0.2')).toEqual({ tls: true, resumed: false, replies: [250] });
  expect(await open('127.0.0.2')).toEqual({ tls: true, resumed: true, replies: [250] });
  // Tickets are kept per MX address: another host gets a full handshake.
  expect(await open('127.0.0.3')).toMatchObject({ tls: true, resumed: false });
});

it('sends QUIT in the same write as the last RCPTs when asked to: one round trip, not two', async () => {
  // Network latency of 300 ms on the RCPT and QUIT replies: QUIT sent with the RCPTs is answered
  // with them; sent after their replies, it would take another 300 ms.
  fleet = await startSmtpFleet({
    hosts: ['127.0.0.2'],
    script: { defaultRcpt: 'accept', replyDelayMs: { rcpt: 300, quit: 300 }, replyDelayModel: 'latency' },
  });
  const opened = await openSession(
    '127.0.0.2',
    'mx.quit.test',
    testSessionSettings(fleet.port),
    AbortSignal.timeout(5000),
  );
  if (!('session' in opened)) throw new Error('no session');
  const replies: number[] = [];
  await opened.session.rcptMany(['a@quit.test', 'b@quit.test'], (reply) => replies.push(reply.code), {
    quit: true,
  });
  await opened.session.close();
  await fleet.waitForIdle();
  expect(replies).toEqual([250, 250]);
  // QUIT reached the server before it sent the first RCPT reply: it went with the RCPTs (sent
  // after their replies, it could only arrive after them).
  const record = fleet.sessions[0];
  const transcript = record?.transcript ?? [];
  const firstRcpt = transcript.findIndex(
    (entry) => entry.type === 'command' && entry.line.startsWith('RCPT'),
  );
  const firstRcptReply = transcript.find((entry, index) => index > firstRcpt && entry.type === 'reply');
  const quit = transcript.find((entry) => entry.type === 'command' && entry.line === 'QUIT');
  expect(quit?.type === 'command' && firstRcptReply !== undefined && quit.arrivedAt < firstRcptReply.at).toBe(
    true,
  );
  // One QUIT, answered 221, and the server closed the session as after any QUIT.
  expect(record?.commands.filter((command) => command === 'QUIT')).toHaveLength(1);
  expect(record?.replies.at(-1)?.code).toBe(221);
  expect(record?.end).toBe('quit');
});
