import type { SocketFactory } from './connection.js';
import { SmtpConnection, SmtpConnectionError } from './connection.js';
import type { SmtpReply } from './reply.js';

/** When to upgrade to TLS with STARTTLS. */
export type StartTlsPolicy = 'opportunistic' | 'require' | 'never';

/** Settings of one SMTP session. */
export interface SessionSettings {
  heloName: string;
  /** Envelope sender; '' sends the null reverse-path `MAIL FROM:<>`. */
  mailFrom: string;
  port: number;
  connectTimeoutMs: number;
  commandTimeoutMs: number;
  startTls: StartTlsPolicy;
  /** Verify the MX's certificate; MX certificates are often self-signed and we send no mail. */
  tlsRejectUnauthorized: boolean;
  socketFactory: SocketFactory;
}

/** Why a session could not reach the point of asking about recipients. */
export type SessionFailure =
  | { kind: 'connection'; error: SmtpConnectionError }
  | { kind: 'reply'; stage: 'greeting' | 'helo' | 'starttls' | 'mail_from'; reply: SmtpReply };

/** An SMTP session that has sent MAIL FROM and can ask RCPT questions. */
export interface OpenSession {
  connection: SmtpConnection;
  /** Capabilities from EHLO (upper case keywords), empty after HELO. */
  capabilities: Set<string>;
  /** RCPT TO for one address; the caller classifies the reply. */
  rcpt(address: string): Promise<SmtpReply>;
  /**
   * RCPT TO for several addresses, pipelined when the server offers PIPELINING (one round trip
   * instead of one per address), else one after another; `onReply` sees each reply in order, so
   * a connection lost half-way leaves the caller knowing which were answered.
   */
  rcptMany(addresses: readonly string[], onReply: (reply: SmtpReply) => void): Promise<void>;
  /** RSET and MAIL FROM again, for a fresh transaction on the same connection. */
  reset(): Promise<SmtpReply>;
  close(): Promise<void>;
}

/**
 * Opens a session to one MX address up to MAIL FROM: greeting, EHLO (HELO only after a 5xx to
 * EHLO, RFC 5321 §4.1.4), STARTTLS when offered and allowed, then MAIL FROM. Returns either the
 * open session or why it could not be opened.
 */
export async function openSession(
  address: string,
  serverName: string,
  settings: SessionSettings,
  signal: AbortSignal,
): Promise<{ session: OpenSession } | { failure: SessionFailure }> {
  let connection: SmtpConnection | undefined;
  try {
    const connectSignal = AbortSignal.any([signal, AbortSignal.timeout(settings.connectTimeoutMs)]);
    const socket = await settings.socketFactory(address, settings.port, connectSignal);
    connection = new SmtpConnection(socket, settings.commandTimeoutMs, signal);
    const greeting = await connection.read();
    if (greeting.code !== 220) return fail(connection, { kind: 'reply', stage: 'greeting', reply: greeting });

    let hello = await greet(connection, settings.heloName);
    if ('failure' in hello) return fail(connection, hello.failure);

    const offersTls = hello.capabilities.has('STARTTLS');
    if (settings.startTls === 'require' && !offersTls) {
      return fail(connection, {
        kind: 'connection',
        error: new SmtpConnectionError(
          'tls_failed',
          `${serverName} does not offer STARTTLS and TLS is required`,
        ),
      });
    }
    if (offersTls && settings.startTls !== 'never') {
      const ready = await connection.command('STARTTLS');
      if (ready.code !== 220) {
        if (settings.startTls === 'require')
          return fail(connection, { kind: 'reply', stage: 'starttls', reply: ready });
      } else {
        await connection.startTls(serverName, settings.tlsRejectUnauthorized);
        // RFC 3207 §4.2: forget everything learned before TLS and greet again.
        hello = await greet(connection, settings.heloName);
        if ('failure' in hello) return fail(connection, hello.failure);
      }
    }

    const mailFromLine = `MAIL FROM:<${settings.mailFrom}>`;
    const mailFrom = await connection.command(mailFromLine);
    if (mailFrom.code !== 250)
      return fail(connection, { kind: 'reply', stage: 'mail_from', reply: mailFrom });

    const open = connection;
    const capabilities = hello.capabilities;
    return {
      session: {
        connection: open,
        capabilities,
        rcpt: (recipient) => open.command(`RCPT TO:<${recipient}>`),
        rcptMany: async (recipients, onReply) => {
          if (!capabilities.has('PIPELINING')) {
            for (const recipient of recipients) onReply(await open.command(`RCPT TO:<${recipient}>`));
            return;
          }
          open.send(recipients.map((recipient) => `RCPT TO:<${recipient}>`));
          for (let index = 0; index < recipients.length; index++) onReply(await open.read());
        },
        reset: async () => {
          const reset = await open.command('RSET');
          if (reset.code !== 250) return reset;
          return open.command(mailFromLine);
        },
        close: () => open.close(),
      },
    };
  } catch (error) {
    if (connection) await connection.close();
    if (error instanceof SmtpConnectionError) return { failure: { kind: 'connection', error } };
    throw error;
  }
}

async function greet(
  connection: SmtpConnection,
  heloName: string,
): Promise<{ capabilities: Set<string> } | { failure: SessionFailure }> {
  const ehlo = await connection.command(`EHLO ${heloName}`);
  if (ehlo.code === 250) {
    // First line is the greeting text; the rest are keywords with parameters.
    return {
      capabilities: new Set(ehlo.lines.slice(1).map((line) => (line.split(' ')[0] ?? '').toUpperCase())),
    };
  }
  if (ehlo.code < 500) return { failure: { kind: 'reply', stage: 'helo', reply: ehlo } };
  const helo = await connection.command(`HELO ${heloName}`);
  if (helo.code !== 250) return { failure: { kind: 'reply', stage: 'helo', reply: helo } };
  return { capabilities: new Set() };
}

async function fail(
  connection: SmtpConnection,
  failure: SessionFailure,
): Promise<{ failure: SessionFailure }> {
  await connection.close();
  return { failure };
}
