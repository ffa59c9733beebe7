/**
 * The script format of the fake SMTP servers: what one fake MTA answers, per host, per recipient
 * domain and per mailbox. Every field is optional; the defaults describe a well-behaved Postfix-like
 * MTA that knows no mailbox (every RCPT gets `550 5.1.1`).
 */

/** A literal reply: any code 200..599 and its text (an array gives a multi-line reply). */
export interface SmtpReplySpec {
  /** The three-digit reply code, 200..599. A `421` always closes the connection after it is sent. */
  code: number;
  /** The text after the code, e.g. `'4.7.1 Try again later'`; one array item per reply line. */
  text: string | readonly string[];
}

/** Greylisting of one recipient, keyed by (client address, sender, recipient) as postgrey does. */
export interface SmtpGreylistSpec {
  /**
   * How long after the first attempt a retry is accepted. Retries before then get the 450 again and
   * do not restart the clock.
   * @default 300
   */
  delayMs?: number;
  /**
   * What the recipient gets once the greylist has been passed.
   * @default 'accept'
   */
  afterwards?: SmtpFinalRcptAction;
}

/**
 * What a recipient gets at `RCPT TO`:
 * - `'accept'`: `250 2.1.5 Ok` (on a domain entry this makes a catch-all domain)
 * - `'unknown'`: `550 5.1.1 <rcpt>: Recipient address rejected: User unknown`
 * - `'disabled'`: `550 5.2.1 <rcpt>: Recipient address rejected: Mailbox disabled`
 * - `'full'`: `552 5.2.2 <rcpt>: Recipient address rejected: Mailbox full`
 * - `'blocked'`: `554 5.7.1 <rcpt>: Recipient address rejected: Access denied`
 * - `'drop'`: the connection is closed without a reply
 * - a {@link SmtpReplySpec}: that reply (a 2xx counts as an accepted recipient)
 */
export type SmtpFinalRcptAction =
  | 'accept'
  | 'unknown'
  | 'disabled'
  | 'full'
  | 'blocked'
  | 'drop'
  | SmtpReplySpec;

/**
 * A {@link SmtpFinalRcptAction}, or `{ greylist }`: `450 4.2.0 <rcpt>: Recipient address rejected:
 * Greylisted` until the delay has passed, then `greylist.afterwards`.
 */
export type SmtpRcptAction = SmtpFinalRcptAction | { greylist: SmtpGreylistSpec };

/** The commands (and the greeting) a reply can belong to; used for delays and drops. */
export type SmtpStage =
  | 'greeting'
  | 'ehlo'
  | 'helo'
  | 'starttls'
  | 'mail'
  | 'rcpt'
  | 'rset'
  | 'noop'
  | 'vrfy'
  | 'data'
  | 'quit'
  | 'other';

/** Closing the connection abruptly at one point of the dialogue. */
export interface SmtpDropRule {
  /** The command at which the connection is dropped (`'greeting'`: right after the TCP accept). */
  at: SmtpStage;
  /**
   * Drop at the nth occurrence of that command in a session (e.g. the second RCPT).
   * @default 1
   */
  nth?: number;
  /**
   * Send the reply first and drop the connection after it, instead of dropping without a reply.
   * @default false
   */
  afterReply?: boolean;
}

/** The behaviour of one fake MTA. */
export interface SmtpScript {
  /**
   * The name the server gives itself in the banner and the EHLO reply.
   * @default 'mx.test'
   */
  hostname?: string;
  /**
   * The greeting: `'ok'` (220 with {@link SmtpScript.banner}), `'busy'` (`421 4.3.2 ... Service not
   * available`, then close), `'blocked'` (`554 5.7.1 ... Access denied`, then `503` to everything but
   * QUIT, as RFC 5321 §3.1 requires) or a literal reply (421 closes; another non-2xx acts like
   * `'blocked'`).
   * @default 'ok'
   */
  greeting?: 'ok' | 'busy' | 'blocked' | SmtpReplySpec;
  /**
   * The lines of the 220 banner; several lines give a multi-line `220-` banner.
   * @default `${hostname} ESMTP testkit`
   */
  banner?: string | readonly string[];
  /**
   * The EHLO reply: `'ok'` (multi-line 250 with the extensions), `'reject'` (`502 5.5.2 Error: command
   * not recognized`, while HELO still works) or a literal reply (a 2xx counts as greeted).
   * @default 'ok'
   */
  ehlo?: 'ok' | 'reject' | SmtpReplySpec;
  /**
   * The first line of an `'ok'` EHLO reply (and of the HELO reply). `{client}` becomes the client's
   * address and `{helo}` the name it gave, as Exim and Sendmail echo them
   * (`'mx.test Hello {helo} [{client}]'`), which is how a client learns its public address.
   * @default hostname
   */
  ehloGreeting?: string;
  /**
   * The HELO reply: `'ok'` (`250 ${hostname}`), `'reject'` or a literal reply.
   * @default 'ok'
   */
  helo?: 'ok' | 'reject' | SmtpReplySpec;
  /**
   * The extension lines of the EHLO reply; `STARTTLS` is added (first) when {@link SmtpScript.tls}
   * advertises it.
   * @default ['PIPELINING', 'SIZE 10240000', 'ENHANCEDSTATUSCODES', '8BITMIME', 'SMTPUTF8']
   */
  extensions?: readonly string[];
  /**
   * STARTTLS: `'offer'` (advertised and working), `'require'` (advertised; MAIL and RCPT get
   * `530 5.7.0` before it), `'none'` (not advertised; the command is unknown) or `'broken'`
   * (advertised, but answered `454 4.7.0 TLS not available`).
   * @default 'offer'
   */
  tls?: 'offer' | 'require' | 'none' | 'broken';
  /**
   * The MAIL FROM reply: `'accept'` (`250 2.1.0 Ok`), `'blocked'` (`554 5.7.1 <sender>: Sender address
   * rejected: Access denied`), `'drop'` or a literal reply (a 2xx opens the transaction).
   * @default 'accept'
   */
  mailFrom?: 'accept' | 'blocked' | 'drop' | SmtpReplySpec;
  /**
   * Per-mailbox actions, keyed by address (matched case-insensitively). The most specific entry wins:
   * mailbox, then {@link SmtpScript.domains}, then {@link SmtpScript.defaultRcpt}.
   * @default {}
   */
  mailboxes?: Readonly<Record<string, SmtpRcptAction>>;
  /**
   * Per-domain actions for every mailbox of a recipient domain without its own entry, keyed by domain
   * (case-insensitive). `'accept'` makes a catch-all domain.
   * @default {}
   */
  domains?: Readonly<Record<string, SmtpRcptAction>>;
  /**
   * The action for a recipient with no mailbox or domain entry.
   * @default 'unknown'
   */
  defaultRcpt?: SmtpRcptAction;
  /**
   * How many RCPT commands one session may issue (RSET does not reset the count); later ones get
   * `452 4.5.3 Error: too many recipients`.
   * @default Infinity
   */
  maxRcptsPerSession?: number;
  /**
   * A delay before every reply, or per stage (stages not listed reply at once).
   * @default 0
   */
  replyDelayMs?: number | Readonly<Partial<Record<SmtpStage, number>>>;
  /**
   * What the delay stands for. `'service'`: the server's own time per command, one command at a
   * time, so n pipelined commands take n delays. `'latency'`: the network's, so each reply leaves
   * `replyDelayMs` after its command arrived and pipelined commands (RFC 2920) overlap. The two
   * differ only for a client that pipelines.
   * @default 'service'
   */
  replyDelayModel?: 'service' | 'latency';
  /**
   * Drop the connection at one point of every session.
   * @default undefined (never)
   */
  drop?: SmtpDropRule;
}
