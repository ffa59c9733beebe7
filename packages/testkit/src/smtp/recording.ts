import type { SmtpReply } from './reply.js';

/** One event of a session, in the order it happened. */
export type SmtpTranscriptEntry =
  /** `arrivedAt`: when the line came off the socket; `at`: when the server began to handle it. */
  | { readonly type: 'command'; readonly at: number; readonly arrivedAt: number; readonly line: string }
  | { readonly type: 'reply'; readonly at: number; readonly code: number; readonly lines: readonly string[] }
  /** The STARTTLS handshake completed; later commands and replies went over TLS. */
  | { readonly type: 'tls'; readonly at: number };

/** Why a session ended. */
export type SmtpSessionEnd =
  /** The server closed after answering QUIT. */
  | 'quit'
  /** The server closed after a 421 reply. */
  | 'closed-by-server'
  /** The script dropped the connection. */
  | 'dropped'
  /** The client closed (or reset) the connection first. */
  | 'closed-by-client'
  /** `close()` of the fleet destroyed the connection. */
  | 'fleet-closed'
  /** The TLS handshake failed. */
  | 'tls-error'
  /** A bug in the fake server (a warning was emitted). */
  | 'internal-error';

/** Everything one connection did; the object is live and updated until the connection closes. */
export interface SmtpSessionRecord {
  /** Sequence number within the fleet, from 1. */
  readonly id: number;
  /** The listening address the client connected to, e.g. `127.0.0.2`. */
  readonly host: string;
  /** The listening port. */
  readonly port: number;
  /** The client's address and port. */
  readonly clientAddress: string;
  readonly clientPort: number;
  /** `Date.now()` at accept and at close (`undefined` while open). */
  readonly startedAt: number;
  readonly endedAt: number | undefined;
  /** Why it ended (`undefined` while open). */
  readonly end: SmtpSessionEnd | undefined;
  /** Whether STARTTLS completed. */
  readonly tls: boolean;
  /** Commands received and replies sent, in order. */
  readonly transcript: readonly SmtpTranscriptEntry[];
  /** Every command line received, in order (also in the transcript). */
  readonly commands: readonly string[];
  /** Every reply sent, in order (also in the transcript). */
  readonly replies: readonly SmtpReply[];
  /** Every RCPT TO address that got a reply, with its reply code. */
  readonly rcpts: readonly { readonly address: string; readonly code: number }[];
  /** Whether the client sent DATA (always refused with 554). */
  readonly dataAttempted: boolean;
}

/** The mutable form the session handler writes to. */
export interface SessionState extends SmtpSessionRecord {
  endedAt: number | undefined;
  end: SmtpSessionEnd | undefined;
  tls: boolean;
  transcript: SmtpTranscriptEntry[];
  commands: string[];
  replies: SmtpReply[];
  rcpts: { address: string; code: number }[];
  dataAttempted: boolean;
}

interface Gauge {
  current: number;
  peak: number;
}

/** Sessions and connection counts of one fleet. */
export class Recorder {
  readonly sessions: SessionState[] = [];
  readonly #gauges = new Map<string, Gauge>();
  readonly #total: Gauge = { current: 0, peak: 0 };
  #nextId = 1;
  #idleWaiters: (() => void)[] = [];

  constructor(hosts: readonly string[]) {
    for (const host of hosts) this.#gauges.set(host, { current: 0, peak: 0 });
  }

  /** Starts the record of a new connection and counts it. */
  open(host: string, port: number, clientAddress: string, clientPort: number): SessionState {
    const session: SessionState = {
      id: this.#nextId++,
      host,
      port,
      clientAddress,
      clientPort,
      startedAt: Date.now(),
      endedAt: undefined,
      end: undefined,
      tls: false,
      transcript: [],
      commands: [],
      replies: [],
      rcpts: [],
      dataAttempted: false,
    };
    this.sessions.push(session);
    for (const gauge of [this.gauge(host), this.#total]) {
      gauge.current++;
      gauge.peak = Math.max(gauge.peak, gauge.current);
    }
    return session;
  }

  /** Ends a record (once) and uncounts its connection. */
  close(session: SessionState, end: SmtpSessionEnd): void {
    if (session.endedAt !== undefined) return;
    session.endedAt = Date.now();
    session.end = end;
    this.gauge(session.host).current--;
    this.#total.current--;
    if (this.#total.current === 0) {
      const waiters = this.#idleWaiters;
      this.#idleWaiters = [];
      for (const wake of waiters) wake();
    }
  }

  /** The counters of one listening address, or of the whole fleet without one. */
  gauge(host?: string): Gauge {
    if (host === undefined) return this.#total;
    const gauge = this.#gauges.get(host);
    if (!gauge) throw new TypeError(`SMTP fleet has no host ${JSON.stringify(host)}`);
    return gauge;
  }

  /** Forgets ended sessions (open ones stay listed) and restarts the peaks from the open count. */
  reset(): void {
    const open = this.sessions.filter((s) => s.endedAt === undefined);
    this.sessions.splice(0, this.sessions.length, ...open);
    for (const gauge of [...this.#gauges.values(), this.#total]) gauge.peak = gauge.current;
  }

  /** Resolves once no connection is open. */
  idle(): Promise<void> {
    if (this.#total.current === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }
}
