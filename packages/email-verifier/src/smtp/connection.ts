import net from 'node:net';
import tls from 'node:tls';
import { ReplyReader, type SmtpReply } from './reply.js';

/** How a connection failed; the probe decides from this whether to try the next MX. */
export type SmtpFailureKind =
  | 'connect_failed'
  | 'timeout'
  | 'dropped'
  | 'protocol'
  | 'tls_failed'
  | 'aborted'
  /** The SOCKS5 proxy itself failed (refused, broke the handshake, answered error 1 or 2): try another proxy. */
  | 'proxy_failed';

/** A failure below the level of SMTP replies. */
export class SmtpConnectionError extends Error {
  override name = 'SmtpConnectionError';
  constructor(
    readonly kind: SmtpFailureKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** What a connection we closed answers to any later read (one shared error: nothing to trace). */
const CLOSED_BY_US = new SmtpConnectionError('dropped', 'connection closed by us');

/**
 * Opens a TCP socket (or one handed over by a proxy) to an MX. The socket may come paused, with
 * bytes already received put back (a proxy's): the reader resumes it.
 */
export type SocketFactory = (host: string, port: number, signal: AbortSignal) => Promise<net.Socket>;

/** A direct TCP connection, bounded by the signal (connect timeout + overall deadline). */
export const directSocket: SocketFactory = (host, port, signal) =>
  new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    const onAbort = () => {
      socket.destroy();
      reject(new SmtpConnectionError('timeout', `connecting to ${host}:${port} timed out`));
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => {
      signal.removeEventListener('abort', onAbort);
      resolve(socket);
    });
    socket.once('error', (error) => {
      signal.removeEventListener('abort', onAbort);
      reject(
        new SmtpConnectionError('connect_failed', `cannot connect to ${host}:${port}: ${error.message}`, {
          cause: error,
        }),
      );
    });
  });

// Building a SecureContext loads the CA store, and a full handshake costs the MX a signature:
// one context for every connection, and the MX's last session ticket offered for resumption
// (the server decides whether to resume). Tickets are per MX address and name; the oldest go first.
let secureContext: tls.SecureContext | undefined;
const sharedSecureContext = () => {
  secureContext ??= tls.createSecureContext();
  return secureContext;
};
const tlsSessions = new Map<string, Buffer>();
const MAX_TLS_SESSIONS = 1000;
function rememberTlsSession(key: string, session: Buffer): void {
  tlsSessions.delete(key);
  if (tlsSessions.size >= MAX_TLS_SESSIONS) {
    const oldest = tlsSessions.keys().next().value;
    if (oldest !== undefined) tlsSessions.delete(oldest);
  }
  tlsSessions.set(key, session);
}

/**
 * One SMTP connection: sends command lines and reads complete (multi-line) replies, each bounded
 * by a per-command timeout and by the caller's AbortSignal (the overall deadline).
 */
export class SmtpConnection {
  private socket: net.Socket;
  private buffered = '';
  private reader = new ReplyReader();
  private replies: SmtpReply[] = [];
  private waiting: { resolve: (reply: SmtpReply) => void; reject: (error: Error) => void } | undefined;
  private failure: SmtpConnectionError | undefined;
  tls = false;
  /** The TLS session was resumed from an earlier connection's ticket (no full handshake). */
  tlsResumed = false;
  /** QUIT went out pipelined with the last commands: close() only waits for the server. */
  private quitSent = false;

  constructor(
    socket: net.Socket,
    private readonly commandTimeoutMs: number,
    private readonly signal: AbortSignal,
  ) {
    // A command is written whole (a pipelined group in one write) and then we wait for its
    // replies: there is nothing for Nagle's algorithm to coalesce, only a delay to add.
    socket.setNoDelay(true);
    this.socket = socket;
    this.attach(socket);
    signal.addEventListener('abort', this.onAbort, { once: true });
  }

  private onAbort = () => this.fail(new SmtpConnectionError('aborted', 'overall deadline reached'));

  private attach(socket: net.Socket) {
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => this.onData(chunk));
    // A proxied socket comes paused (see SocketFactory); a 'data' listener alone would not resume it.
    socket.resume();
    // Errors are built only when they are news: an Error captures a stack trace, and every
    // session ends with a 'close' after we have already closed it ourselves.
    socket.on('error', (error) => {
      if (!this.failure) this.fail(new SmtpConnectionError('dropped', error.message, { cause: error }));
    });
    socket.on('close', () => {
      if (!this.failure) this.fail(new SmtpConnectionError('dropped', 'connection closed by the server'));
    });
  }

  private onData(chunk: string) {
    this.buffered += chunk;
    let end = this.buffered.indexOf('\n');
    while (end >= 0) {
      const line = this.buffered.slice(0, end).replace(/\r$/, '');
      this.buffered = this.buffered.slice(end + 1);
      try {
        const reply = this.reader.push(line);
        if (reply) this.deliver(reply);
      } catch (error) {
        this.fail(new SmtpConnectionError('protocol', (error as Error).message, { cause: error }));
        return;
      }
      end = this.buffered.indexOf('\n');
    }
    // A server that streams an endless line is not an MTA worth waiting for.
    if (this.buffered.length > 64 * 1024)
      this.fail(new SmtpConnectionError('protocol', 'reply line too long'));
  }

  private deliver(reply: SmtpReply) {
    const waiting = this.waiting;
    if (waiting) {
      this.waiting = undefined;
      waiting.resolve(reply);
    } else this.replies.push(reply);
  }

  private fail(error: SmtpConnectionError) {
    if (this.failure) return;
    this.failure = error;
    this.signal.removeEventListener('abort', this.onAbort);
    this.socket.destroy();
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.reject(error);
  }

  /** Reads the next reply (the greeting, or the answer to a command already sent). */
  read(): Promise<SmtpReply> {
    const queued = this.replies.shift();
    if (queued) return Promise.resolve(queued);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => this.fail(new SmtpConnectionError('timeout', `no reply within ${this.commandTimeoutMs} ms`)),
        this.commandTimeoutMs,
      );
      this.waiting = {
        resolve: (reply) => {
          clearTimeout(timer);
          resolve(reply);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
    });
  }

  /** Sends one command line and reads its reply. */
  async command(line: string): Promise<SmtpReply> {
    this.send([line]);
    return this.read();
  }

  /**
   * Sends command lines in one write without waiting for replies (RFC 2920 pipelining, only
   * after the server advertised PIPELINING); the caller reads one reply per line, in order.
   */
  send(lines: readonly string[]): void {
    if (lines.some((line) => /[\r\n]/.test(line)))
      throw new SmtpConnectionError('protocol', 'refusing to send a command containing CR or LF');
    if (this.failure) throw this.failure;
    if (lines.at(-1)?.toUpperCase() === 'QUIT') this.quitSent = true;
    this.socket.write(lines.map((line) => `${line}\r\n`).join(''), 'latin1');
  }

  /** Upgrades the connection after a 220 reply to STARTTLS (RFC 3207). */
  async startTls(servername: string, rejectUnauthorized: boolean): Promise<void> {
    const plain = this.socket;
    plain.removeAllListeners('data');
    plain.removeAllListeners('close');
    plain.removeAllListeners('error');
    const secure = await new Promise<tls.TLSSocket>((resolve, reject) => {
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new SmtpConnectionError('tls_failed', `TLS handshake took over ${this.commandTimeoutMs} ms`));
      }, this.commandTimeoutMs);
      const resumeKey = `${plain.remoteAddress}|${servername}|${rejectUnauthorized}`;
      const socket = tls.connect({
        socket: plain,
        servername: net.isIP(servername) ? undefined : servername,
        rejectUnauthorized,
        secureContext: sharedSecureContext(),
        session: tlsSessions.get(resumeKey),
      });
      socket.on('session', (session: Buffer) => rememberTlsSession(resumeKey, session));
      socket.once('secureConnect', () => {
        clearTimeout(timer);
        resolve(socket);
      });
      socket.once('error', (error) => {
        clearTimeout(timer);
        reject(
          new SmtpConnectionError('tls_failed', `TLS handshake failed: ${error.message}`, { cause: error }),
        );
      });
    }).catch((error: SmtpConnectionError) => {
      this.fail(error);
      throw error;
    });
    this.socket = secure;
    this.tls = true;
    this.tlsResumed = secure.isSessionReused();
    this.buffered = '';
    this.attach(secure);
  }

  /**
   * Sends QUIT and waits (briefly) for the server to close, so a per-MX connection limit counts
   * connections the way the server sees them.
   */
  async close(): Promise<void> {
    const socket = this.socket;
    const open = !this.failure;
    this.signal.removeEventListener('abort', this.onAbort);
    this.failure ??= CLOSED_BY_US;
    if (!open || socket.destroyed) return;
    const quit = this.quitSent ? '' : 'QUIT\r\n';
    await new Promise<void>((resolve) => {
      // Polite servers answer 221 and close; a rude one gets destroyed after a short wait.
      const timer = setTimeout(() => socket.destroy(), Math.min(this.commandTimeoutMs, 1000));
      socket.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      socket.end(quit);
    });
  }
}
