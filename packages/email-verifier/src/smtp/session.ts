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

/** The server refused our MAIL FROM that was pipelined with the first RCPTs. */
export class MailFromRefusedError extends Error {
  override name = 'MailFromRefusedError';
  constructor(readonly reply: SmtpReply) {
    super(`MAIL FROM refused: ${reply.code} ${reply.lines.join(' ')}`);
  }
}

/** Why a session could not reach the point of asking about recipients. */
export type SessionFailure =
  | { kind: 'connection'; error: SmtpConnectionError }
  | { kind: 'reply'; stage: 'greeting' | 'helo' | 'starttls' | 'mail_from'; reply: SmtpReply };

/** An SMTP session ready to ask RCPT questions (MAIL FROM sent, or pipelined with the first). */
export interface OpenSession {
  connection: SmtpConnection;
  /** Capabilities from EHLO (upper case keywords), empty after HELO. */
  capabilities: Set<string>;
  /**
   * RCPT TO for several addresses, pipelined when the server offers PIPELINING (one round trip
   * instead of one per address), else one after another; `onReply` sees each reply in order, so
   * a connection lost half-way leaves the caller knowing which were answered. The first call
   * on a pipelining server carries MAIL FROM too and throws MailFromRefusedError if the server
   * refuses our sender. `quit` ends the session with this group: QUIT rides in the same write
   * (RFC 2920 §3.1 allows it as the last command of a group), saving the round trip of a QUIT
   * of its own; only on a pipelining server, and after it only close() is left to call.
   */
  rcptMany(
    addresses: readonly string[],
    onReply: (reply: SmtpReply) => void,
    options?: { quit?: boolean },
  ): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens a session to one MX address: greeting, EHLO (HELO only after a 5xx to EHLO, RFC 5321
 * §4.1.4), STARTTLS when offered and allowed, then MAIL FROM (held back to travel with the first
 * RCPTs when the server pipelines). Returns either the open session or why it could not be opened.
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
    const capabilities = hello.capabilities;
    const pipelining = capabilities.has('PIPELINING');
    // With PIPELINING, MAIL FROM travels in the same write as the first RCPTs (RFC 2920 §3.1):
    // one round trip fewer per session. Without it, MAIL FROM is answered before we go on.
    if (!pipelining) {
      const mailFrom = await connection.command(mailFromLine);
      if (mailFrom.code !== 250)
        return fail(connection, { kind: 'reply', stage: 'mail_from', reply: mailFrom });
    }
    let mailFromSent = !pipelining;
    // The domain of the recipients in the open transaction (null before the first RCPT).
    let transactionDomain: string | null = null;

    const open = connection;
    return {
      session: {
        connection: open,
        capabilities,
        rcptMany: async (recipients, onReply, { quit = false } = {}) => {
          // One recipient domain per transaction: Gmail answers a second domain's RCPT with
          // `451 4.3.0 Multiple destination domains per transaction is unsupported`, so a new
          // domain starts a new transaction (RSET, MAIL FROM), in the same write when pipelining.
          const lines: string[] = [];
          for (const recipient of recipients) {
            const domain = recipient.slice(recipient.lastIndexOf('@') + 1).toLowerCase();
            if (transactionDomain !== null && domain !== transactionDomain) lines.push('RSET', mailFromLine);
            transactionDomain = domain;
            lines.push(`RCPT TO:<${recipient}>`);
          }
          if (!pipelining) {
            for (const line of lines) {
              const reply = await open.command(line);
              if (line.startsWith('RCPT')) onReply(reply);
              else checkTransactionReply(line, reply);
            }
            return;
          }
          if (!mailFromSent) lines.unshift(mailFromLine);
          mailFromSent = true;
          open.send(quit ? [...lines, 'QUIT'] : lines);
          for (let index = 0; index < lines.length; index++) {
            const line = lines[index] as string;
            const reply = await open.read();
            if (line.startsWith('RCPT')) {
              onReply(reply);
              continue;
            }
            try {
              checkTransactionReply(line, reply);
            } catch (error) {
              // The RCPTs sent after a refused MAIL FROM are answered 503 (no transaction); read
              // the rest of the group off, then report what the session failed on.
              try {
                for (let rest = index + 1; rest < lines.length; rest++) await open.read();
              } catch {}
              throw error;
            }
          }
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

// A refused MAIL FROM is the server refusing our sender; a refused RSET leaves no transaction to
// continue in: the session is broken.
function checkTransactionReply(line: string, reply: SmtpReply): void {
  if (line === 'RSET') {
    if (reply.code !== 250)
      throw new SmtpConnectionError(
        'protocol',
        `the server refused RSET: ${reply.code} ${reply.lines.join(' ')}`,
      );
    return;
  }
  if (reply.code !== 250) throw new MailFromRefusedError(reply);
}
