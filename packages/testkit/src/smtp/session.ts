import type { Socket } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import { type SecureContext, TLSSocket } from 'node:tls';
import type { Greylist } from './greylist.js';
import { parseCommand, parsePath } from './parse.js';
import type { Recorder, SessionState, SmtpSessionEnd } from './recording.js';
import * as R from './reply.js';
import { type ResolvedScript, rcptActionFor } from './resolve.js';
import type { SmtpFinalRcptAction, SmtpStage } from './script.js';

/** What a session needs from its host. */
export interface SessionContext {
  script: ResolvedScript;
  greylist: Greylist;
  recorder: Recorder;
  record: SessionState;
  secureContext: SecureContext;
}

// RFC 5321 allows 512 octets per command line; a longer buffer without a line end is answered and
// discarded rather than grown without bound.
const MAX_LINE = 4096;

type Outcome = R.SmtpReply | 'drop' | 'starttls';

/** One SMTP dialogue on one accepted connection, driven line by line by the host's script. */
export class SmtpSession {
  readonly #raw: Socket;
  readonly #ctx: SessionContext;
  #stream: Socket;
  #decoder = new StringDecoder('utf8');
  #buffer = '';
  #discarding = false;
  // null marks a line that was too long; `at` is when the line arrived.
  readonly #queue: Array<{ line: string | null; at: number }> = [];
  // When the command being answered arrived (the latency model times replies from it).
  #arrivedAt = Date.now();
  #busy = true;
  #closed = false;
  #end: SmtpSessionEnd | undefined;
  readonly #sleeps = new Map<NodeJS.Timeout, () => void>();
  readonly #counts = new Map<SmtpStage, number>();
  // Dialogue state.
  #greetingRejected = false;
  #greeted = false;
  #sender: string | undefined;
  #rcptCount = 0;

  constructor(socket: Socket, ctx: SessionContext) {
    this.#raw = socket;
    this.#stream = socket;
    this.#ctx = ctx;
    socket.on('data', this.#onData);
    socket.on('error', () => {});
    socket.on('close', this.#onClose);
    void this.#greet();
  }

  /** Destroys the connection at once (used by the fleet's `close()`). */
  destroy(end: SmtpSessionEnd): void {
    this.#close(end, 'destroy');
    // A session already closing gracefully may still wait for a flush; do not wait for it.
    this.#stream.destroy();
    this.#raw.destroy();
  }

  readonly #onData = (chunk: Buffer): void => {
    this.#buffer += this.#decoder.write(chunk);
    let newline = this.#buffer.indexOf('\n');
    while (newline >= 0) {
      const line = this.#buffer.slice(0, newline).replace(/\r$/, '');
      this.#buffer = this.#buffer.slice(newline + 1);
      this.#queue.push({ line: this.#discarding ? null : line, at: Date.now() });
      this.#discarding = false;
      newline = this.#buffer.indexOf('\n');
    }
    if (this.#buffer.length > MAX_LINE) {
      this.#buffer = '';
      this.#discarding = true;
    }
    void this.#pump();
  };

  readonly #onClose = (): void => {
    this.#closed = true;
    for (const [timer, wake] of this.#sleeps) {
      clearTimeout(timer);
      wake();
    }
    this.#sleeps.clear();
    this.#ctx.recorder.close(this.#ctx.record, this.#end ?? 'closed-by-client');
  };

  #close(end: SmtpSessionEnd, how: 'end' | 'destroy'): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#end = end;
    if (how === 'destroy') {
      this.#stream.destroy();
      this.#raw.destroy();
      return;
    }
    // Flush what was written, then close without waiting for the client's FIN.
    this.#stream.once('finish', () => this.#stream.destroy());
    this.#stream.end();
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#sleeps.delete(timer);
        resolve();
      }, ms);
      this.#sleeps.set(timer, resolve);
    });
  }

  async #pump(): Promise<void> {
    if (this.#busy) return;
    this.#busy = true;
    try {
      while (!this.#closed && this.#queue.length > 0) {
        const next = this.#queue.shift();
        this.#arrivedAt = next?.at ?? Date.now();
        await this.#handle(next?.line ?? null);
      }
    } catch (error) {
      // A bug in the fake must not crash the test process, but it must not pass for a scripted drop.
      process.emitWarning(`SMTP fake session failed: ${String(error)}`);
      this.#close('internal-error', 'destroy');
    }
    this.#busy = false;
  }

  /** Counts an occurrence of a stage and says whether the drop rule fires on it. */
  #dropRuleFires(stage: SmtpStage): 'before' | 'after' | undefined {
    const n = (this.#counts.get(stage) ?? 0) + 1;
    this.#counts.set(stage, n);
    const rule = this.#ctx.script.drop;
    if (!rule || rule.at !== stage || (rule.nth ?? 1) !== n) return undefined;
    return rule.afterReply ? 'after' : 'before';
  }

  /** Sends a reply after the stage's delay; false when the connection closed meanwhile. */
  async #send(stage: SmtpStage, reply: R.SmtpReply): Promise<boolean> {
    const { replyDelayMs, replyDelayModel } = this.#ctx.script;
    const delay = replyDelayMs(stage);
    const ms = replyDelayModel === 'latency' ? this.#arrivedAt + delay - Date.now() : delay;
    if (ms > 0) await this.#sleep(ms);
    if (this.#closed) return false;
    const { record } = this.#ctx;
    record.replies.push(reply);
    record.transcript.push({ type: 'reply', at: Date.now(), code: reply.code, lines: reply.lines });
    this.#stream.write(R.formatReply(reply));
    return true;
  }

  async #greet(): Promise<void> {
    const { script } = this.#ctx;
    const drop = this.#dropRuleFires('greeting');
    if (drop === 'before') return this.#close('dropped', 'destroy');
    const g = script.greeting;
    const reply =
      g === 'ok'
        ? R.banner(script.banner)
        : g === 'busy'
          ? R.busy(script.hostname)
          : g === 'blocked'
            ? R.greetingBlocked(script.hostname)
            : R.fromSpec(g);
    this.#greetingRejected = reply.code >= 300;
    await this.#finishReply('greeting', reply, drop);
    this.#busy = false;
    await this.#pump();
  }

  /** Sends a reply, then closes if it was a 421 or the drop rule fires after it. */
  async #finishReply(stage: SmtpStage, reply: R.SmtpReply, drop: 'after' | undefined): Promise<void> {
    if (!(await this.#send(stage, reply))) return;
    if (reply.code === 421) this.#close('closed-by-server', 'end');
    else if (drop === 'after') this.#close('dropped', 'end');
    else if (stage === 'quit' && reply.code === 221) this.#close('quit', 'end');
  }

  async #handle(line: string | null): Promise<void> {
    const { record } = this.#ctx;
    const shown = line ?? '<line too long>';
    record.commands.push(shown);
    record.transcript.push({ type: 'command', at: Date.now(), arrivedAt: this.#arrivedAt, line: shown });
    if (line === null) {
      await this.#send('other', R.replies.lineTooLong);
      return;
    }
    const { stage, arg } = parseCommand(line);
    const drop = this.#dropRuleFires(stage);
    if (drop === 'before') return this.#close('dropped', 'destroy');
    const outcome = this.#answer(stage, line, arg);
    if (outcome === 'drop') return this.#close('dropped', 'destroy');
    if (outcome === 'starttls') return this.#startTls(drop);
    if (stage === 'data') record.dataAttempted = true;
    await this.#finishReply(stage, outcome, drop);
  }

  #answer(stage: SmtpStage, line: string, arg: string): Outcome {
    if (this.#greetingRejected) return stage === 'quit' ? R.replies.bye : R.replies.badSequence;
    const { script } = this.#ctx;
    switch (stage) {
      case 'ehlo':
      case 'helo':
        return this.#hello(stage, arg);
      case 'starttls':
        if (script.tls === 'none') return R.replies.unrecognized;
        if (this.#ctx.record.tls) return R.replies.tlsActive;
        if (!this.#greeted) return R.replies.needHelo;
        return script.tls === 'broken' ? R.replies.tlsUnavailable : 'starttls';
      case 'mail':
        return this.#mail(arg);
      case 'rcpt':
        return this.#rcpt(arg);
      case 'rset':
        this.#sender = undefined;
        return R.replies.ok;
      case 'noop':
        return R.replies.ok;
      case 'vrfy':
        return R.replies.vrfyDisabled;
      case 'data':
        return R.dataRefused(script.hostname);
      case 'quit':
        return R.replies.bye;
      default:
        return line.trim() === '' ? R.replies.badSyntax : R.replies.unrecognized;
    }
  }

  #hello(stage: 'ehlo' | 'helo', arg: string): Outcome {
    const { script, record } = this.#ctx;
    if (arg === '') return stage === 'ehlo' ? R.replies.ehloSyntax : R.replies.heloSyntax;
    const action = stage === 'ehlo' ? script.ehlo : script.helo;
    let reply: R.SmtpReply;
    if (action === 'reject') reply = R.replies.unrecognized;
    else if (action !== 'ok') reply = R.fromSpec(action);
    else {
      const first = script.ehloGreeting
        .replaceAll('{client}', record.clientAddress)
        .replaceAll('{helo}', arg.split(' ')[0] ?? arg);
      if (stage === 'helo') reply = R.reply(250, first);
      else {
        const offerTls = script.tls !== 'none' && !record.tls;
        reply = R.reply(250, first, ...(offerTls ? ['STARTTLS'] : []), ...script.extensions);
      }
    }
    if (reply.code < 300) {
      this.#greeted = true;
      this.#sender = undefined;
    }
    return reply;
  }

  #mail(arg: string): Outcome {
    const { script, record } = this.#ctx;
    if (!this.#greeted) return R.replies.needHelo;
    if (script.tls === 'require' && !record.tls) return R.replies.tlsRequired;
    if (this.#sender !== undefined) return R.replies.nestedMail;
    const sender = parsePath(arg, 'FROM');
    if (sender === undefined) return R.replies.mailSyntax;
    const action = script.mailFrom;
    if (action === 'drop') return 'drop';
    const reply =
      action === 'accept'
        ? R.replies.mailOk
        : action === 'blocked'
          ? R.senderBlocked(sender)
          : R.fromSpec(action);
    if (reply.code < 300) this.#sender = sender;
    return reply;
  }

  #rcpt(arg: string): Outcome {
    const { script, record, greylist } = this.#ctx;
    if (!this.#greeted) return R.replies.needHelo;
    if (script.tls === 'require' && !record.tls) return R.replies.tlsRequired;
    if (this.#sender === undefined) return R.replies.needMail;
    const rcpt = parsePath(arg, 'TO');
    if (rcpt === undefined || !(rcpt.includes('@') || rcpt.toLowerCase() === 'postmaster')) {
      return R.replies.rcptSyntax;
    }
    this.#rcptCount++;
    let outcome: Outcome;
    if (this.#rcptCount > script.maxRcptsPerSession) outcome = R.replies.tooManyRcpts;
    else {
      const scripted = rcptActionFor(script, rcpt);
      let action: SmtpFinalRcptAction | 'greylisted';
      if (typeof scripted === 'object' && 'greylist' in scripted) {
        const { delayMs = 300, afterwards = 'accept' } = scripted.greylist;
        action = greylist.check(record.clientAddress, this.#sender, rcpt, delayMs)
          ? 'greylisted'
          : afterwards;
      } else action = scripted;
      outcome = rcptOutcome(action, rcpt);
    }
    if (typeof outcome === 'object') record.rcpts.push({ address: rcpt, code: outcome.code });
    return outcome;
  }

  async #startTls(drop: 'after' | undefined): Promise<void> {
    // Anything the client pipelined after STARTTLS is plaintext injection (RFC 3207 §4.2): drop it.
    this.#raw.removeListener('data', this.#onData);
    this.#queue.length = 0;
    this.#buffer = '';
    if (!(await this.#send('starttls', R.replies.startTls))) return;
    if (drop === 'after') return this.#close('dropped', 'end');
    const secure = new TLSSocket(this.#raw, { isServer: true, secureContext: this.#ctx.secureContext });
    this.#stream = secure;
    this.#decoder = new StringDecoder('utf8');
    // The dialogue restarts from scratch over TLS (RFC 3207 §4.2); the RCPT count is per connection.
    this.#greeted = false;
    this.#sender = undefined;
    secure.on('error', () => this.#close('tls-error', 'destroy'));
    secure.on('close', this.#onClose);
    secure.on('data', this.#onData);
    secure.once('secure', () => {
      this.#ctx.record.tls = true;
      this.#ctx.record.transcript.push({ type: 'tls', at: Date.now() });
    });
  }
}

function rcptOutcome(action: SmtpFinalRcptAction | 'greylisted', rcpt: string): Outcome {
  switch (action) {
    case 'accept':
      return R.replies.rcptOk;
    case 'unknown':
      return R.unknownUser(rcpt);
    case 'disabled':
      return R.mailboxDisabled(rcpt);
    case 'full':
      return R.mailboxFull(rcpt);
    case 'blocked':
      return R.rcptBlocked(rcpt);
    case 'greylisted':
      return R.greylisted(rcpt);
    case 'drop':
      return 'drop';
    default:
      return R.fromSpec(action);
  }
}
