import { directSocket } from '../smtp/connection.js';
import type { SessionSettings } from '../smtp/session.js';

/** SMTP session settings for tests against a testkit fleet on `port`: short timeouts, STARTTLS when offered. */
export function testSessionSettings(port: number): SessionSettings {
  return {
    heloName: 'verifier.test',
    mailFrom: '',
    port,
    connectTimeoutMs: 1000,
    commandTimeoutMs: 1000,
    startTls: 'opportunistic',
    tlsRejectUnauthorized: false,
    socketFactory: directSocket,
  };
}
