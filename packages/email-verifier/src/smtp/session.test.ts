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
