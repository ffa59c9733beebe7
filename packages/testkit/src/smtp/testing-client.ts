import { connect as netConnect, type Socket } from 'node:net';
import { type TLSSocket, connect as tlsConnect } from 'node:tls';

/** A reply as read by the test client. */
export interface ClientReply {
  code: number;
  /** Text of every line without the code and separator. */
  lines: string[];
}

type Waiter = { resolve: (r: ClientReply) => void; reject: (e: Error) => void };

/**
 * A raw line-based SMTP client for testing the fake servers: it reads multi-line replies to the end
 * and upgrades to TLS on demand, and never interprets anything, so tests see exactly what was sent.
 */
export class SmtpTestClient {
  #socket: Socket;
  #buffer = '';
  #pending: string[] = [];
  readonly #replies: ClientReply[] = [];
  readonly #waiters: Waiter[] = [];
  #error: Error | undefined;
  #closed = false;
  readonly #closeWaiters: (() => void)[] = [];
  /** The TLS socket after {@link SmtpTestClient.startTls}. */
  tlsSocket: TLSSocket | undefined;

  private constructor(socket: Socket) {
    this.#socket = socket;
    this.#attach(socket);
  }

  /** Opens a connection (from `localAddress` when given). */
  static connect(port: number, host: string, localAddress?: string): Promise<SmtpTestClient> {
    return new Promise((resolve, reject) => {
      const socket = netConnect({ port, host, ...(localAddress ? { localAddress } : {}) });
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new SmtpTestClient(socket));
      });
    });
  }

  /** Whether the connection has closed. */
  get closed(): boolean {
    return this.#closed;
  }

  #attach(socket: Socket): void {
    socket.setEncoding('utf8');
    socket.on('data', this.#onData);
    socket.on('error', () => {});
    socket.on('close', this.#onClose);
  }

  readonly #onData = (chunk: string): void => {
    this.#buffer += chunk;
    let newline = this.#buffer.indexOf('\r\n');
    while (newline >= 0) {
      this.#onLine(this.#buffer.slice(0, newline));
      this.#buffer = this.#buffer.slice(newline + 2);
      newline = this.#buffer.indexOf('\r\n');
    }
  };

  #onLine(line: string): void {
    const match = /^(\d{3})([ -]|$)(.*)$/.exec(line);
    if (!match) {
      this.#fail(new Error(`malformed reply line ${JSON.stringify(line)}`));
      return;
    }
    this.#pending.push(match[3] ?? '');
    if (match[2] === '-') return;
    const reply = { code: Number(match[1]), lines: this.#pending };
    this.#pending = [];
    const waiter = this.#waiters.shift();
    if (waiter) waiter.resolve(reply);
    else this.#replies.push(reply);
  }

  #fail(error: Error): void {
    this.#error ??= error;
    for (const waiter of this.#waiters.splice(0)) waiter.reject(error);
  }

  readonly #onClose = (): void => {
    if (this.#closed) return;
    this.#closed = true;
    this.#fail(new Error('connection closed'));
    for (const wake of this.#closeWaiters.splice(0)) wake();
  };

  /** Reads the next complete reply. */
  read(timeoutMs = 2000): Promise<ClientReply> {
    const queued = this.#replies.shift();
    if (queued) return Promise.resolve(queued);
    if (this.#error) return Promise.reject(this.#error);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const i = this.#waiters.indexOf(waiter);
        if (i >= 0) this.#waiters.splice(i, 1);
        reject(new Error(`no reply within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter: Waiter = {
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      this.#waiters.push(waiter);
    });
  }

  /** Sends one command line (CRLF is added). */
  send(line: string): void {
    this.#socket.write(`${line}\r\n`);
  }

  /** Sends a command and reads its reply. */
  command(line: string, timeoutMs?: number): Promise<ClientReply> {
    this.send(line);
    return this.read(timeoutMs);
  }

  /** Sends STARTTLS and, on a 220, completes a TLS handshake (any certificate accepted). */
  async startTls(): Promise<ClientReply> {
    const reply = await this.command('STARTTLS');
    if (reply.code !== 220) return reply;
    const raw = this.#socket;
    raw.off('data', this.#onData);
    raw.off('close', this.#onClose);
    const secure = await new Promise<TLSSocket>((resolve, reject) => {
      const s = tlsConnect({ socket: raw, rejectUnauthorized: false });
      s.once('error', reject);
      s.once('secureConnect', () => {
        s.off('error', reject);
        resolve(s);
      });
    });
    this.#socket = secure;
    this.tlsSocket = secure;
    this.#attach(secure);
    return reply;
  }

  /** Resolves when the server has closed the connection. */
  waitClosed(timeoutMs = 2000): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`still open after ${timeoutMs} ms`)), timeoutMs);
      this.#closeWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Closes the connection from the client side. */
  destroy(): void {
    this.#socket.destroy();
  }
}

/** Connects and runs greeting, EHLO and MAIL FROM, failing unless each gets a 2xx. */
export async function openTransaction(
  port: number,
  host = '127.0.0.1',
  sender = 'probe@verifier.test',
): Promise<SmtpTestClient> {
  const client = await SmtpTestClient.connect(port, host);
  for (const step of [undefined, 'EHLO verifier.test', `MAIL FROM:<${sender}>`]) {
    const reply = step === undefined ? await client.read() : await client.command(step);
    if (reply.code >= 300) {
      client.destroy();
      throw new Error(`${step ?? 'greeting'} got ${reply.code} ${reply.lines.join(' / ')}`);
    }
  }
  return client;
}
