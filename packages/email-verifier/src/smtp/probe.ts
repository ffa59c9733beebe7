import type { MailHost } from '../dns/mail-hosts.js';
import { classifyRcptReply, type RcptOutcome } from './classify-reply.js';
import type { KeyedLimiter } from './keyed-limiter.js';
import type { SmtpReply } from './reply.js';
import { type OpenSession, openSession, type SessionFailure, type SessionSettings } from './session.js';

/** The verdict of the probe for one mailbox. */
export type ProbeOutcome = Exclude<RcptOutcome, 'too_many_recipients'> | 'timeout' | 'unreachable';

/** What the last SMTP exchange about a mailbox looked like; goes into the result's `smtp` block. */
export interface SmtpDetail {
  host: string | null;
  code: number | null;
  enhanced_status: string | null;
  message: string | null;
  tls: boolean;
}

export interface ProbeResult {
  outcome: ProbeOutcome;
  detail: SmtpDetail;
}

/** Results of probing one domain's recipients; catchAll is null when it could not be told. */
export interface DomainProbe {
  results: Map<string, ProbeResult>;
  catchAll: boolean | null;
}

/** Everything the probe needs besides the domain and its recipients. */
export interface ProbeContext {
  settings: SessionSettings;
  limiter: KeyedLimiter;
  /** Addresses to connect to for an MX host name (already filtered by the caller's policy). */
  resolveAddresses: (host: string) => Promise<string[]>;
  maxRcptsPerSession: number;
  /** RCPT limits learned from 452 4.5.3 replies, per MX address, shared across calls. */
  learnedLimits: Map<string, number>;
  /** A local part no real mailbox has, for the catch-all question. */
  syntheticLocalPart: () => string;
  /** The overall deadline. */
  signal: AbortSignal;
}

const NO_DETAIL: SmtpDetail = { host: null, code: null, enhanced_status: null, message: null, tls: false };

/**
 * Asks the domain's MX hosts, in order, about each recipient, reusing one session for several
 * recipients, then asks about a synthetic address to detect catch-all. A host that refuses the
 * connection, greets with 4xx/5xx or times out is skipped for the next one (RFC 5321 §5.1).
 */
export async function probeDomain(
  domain: string,
  hosts: readonly MailHost[],
  recipients: readonly string[],
  context: ProbeContext,
): Promise<DomainProbe> {
  const results = new Map<string, ProbeResult>();
  const synthetic = `${context.syntheticLocalPart()}@${domain}`;
  let pending = [...new Set(recipients)];
  let catchAllPending = true;
  let catchAll: boolean | null = null;
  let lastFailure: { outcome: ProbeOutcome; detail: SmtpDetail } = {
    outcome: 'unreachable',
    detail: NO_DETAIL,
  };

  const needsCatchAll = () =>
    catchAllPending && [...results.values()].some((result) => result.outcome !== 'mailbox_not_found');

  for (const host of hosts) {
    if (pending.length === 0 && !needsCatchAll()) break;
    let addresses: string[];
    try {
      addresses = await context.resolveAddresses(host.host);
    } catch {
      addresses = [];
    }
    if (addresses.length === 0) {
      lastFailure = {
        outcome: 'unreachable',
        detail: { ...NO_DETAIL, host: host.host, message: 'no usable address' },
      };
    }
    for (const address of addresses) {
      const hostDone = await probeAddress(host.host, address);
      if (hostDone === 'next_host') break;
      if (hostDone === 'done') return { results, catchAll };
    }
    if (context.signal.aborted) break;
  }
  const failure = context.signal.aborted
    ? { outcome: 'timeout' as const, detail: lastFailure.detail }
    : lastFailure;
  for (const recipient of pending) results.set(recipient, failure);
  return { results, catchAll };

  // Runs sessions against one MX address until nothing is pending or the address fails.
  async function probeAddress(
    hostName: string,
    address: string,
  ): Promise<'done' | 'next_address' | 'next_host'> {
    while (pending.length > 0 || needsCatchAll()) {
      let release: () => void;
      try {
        release = await context.limiter.acquire(address, context.signal);
      } catch {
        return 'next_host';
      }
      try {
        const opened = await openSession(address, hostName, context.settings, context.signal);
        if ('failure' in opened) {
          lastFailure = describeFailure(hostName, opened.failure);
          // A refused connection may be one dead address of several; anything else condemns the host.
          return opened.failure.kind === 'connection' && opened.failure.error.kind === 'connect_failed'
            ? 'next_address'
            : 'next_host';
        }
        const outcome = await runSession(opened.session, hostName, address);
        if (outcome === 'dropped') return 'next_host';
      } finally {
        // One more turn of the event loop lets the server side see the close too, so the slot
        // is handed on only when the MX itself counts one connection fewer.
        await new Promise((resolve) => setImmediate(resolve));
        release();
      }
    }
    return 'done';
  }

  // Asks as many questions as the session allows. Returns 'dropped' if the server went away.
  async function runSession(
    session: OpenSession,
    hostName: string,
    address: string,
  ): Promise<'ok' | 'dropped'> {
    const limit = Math.min(
      context.maxRcptsPerSession,
      context.learnedLimits.get(address) ?? Number.POSITIVE_INFINITY,
    );
    let asked = 0;
    try {
      while (asked < limit && (pending.length > 0 || needsCatchAll())) {
        const recipient = pending[0] ?? synthetic;
        const reply = await session.rcpt(recipient);
        const outcome = classifyRcptReply(reply);
        if (outcome === 'too_many_recipients') {
          // The server caps recipients per session: remember the cap (at least 1) and reconnect.
          context.learnedLimits.set(address, Math.max(1, asked));
          if (asked === 0) {
            // Not even one recipient: the host is refusing us, not counting recipients.
            lastFailure = { outcome: 'temporary_failure', detail: detailOf(hostName, reply, session) };
            await session.close();
            return 'dropped';
          }
          break;
        }
        asked++;
        if (recipient === synthetic && pending.length === 0) {
          catchAllPending = false;
          catchAll = outcome === 'accepted' ? true : outcome === 'mailbox_not_found' ? false : null;
        } else {
          pending = pending.slice(1);
          results.set(recipient, { outcome, detail: detailOf(hostName, reply, session) });
        }
      }
      await session.close();
      return 'ok';
    } catch (error) {
      await session.close();
      lastFailure = {
        outcome:
          context.signal.aborted || (error as { kind?: string }).kind === 'timeout'
            ? 'timeout'
            : 'unreachable',
        detail: {
          ...NO_DETAIL,
          host: hostName,
          message: (error as Error).message,
          tls: session.connection.tls,
        },
      };
      return 'dropped';
    }
  }
}

function detailOf(host: string, reply: SmtpReply, session: OpenSession): SmtpDetail {
  return {
    host,
    code: reply.code,
    enhanced_status: reply.enhanced ?? null,
    message: reply.lines.join(' ').slice(0, 500),
    tls: session.connection.tls,
  };
}

function describeFailure(
  host: string,
  failure: SessionFailure,
): { outcome: ProbeOutcome; detail: SmtpDetail } {
  if (failure.kind === 'connection') {
    const timedOut = failure.error.kind === 'timeout' || failure.error.kind === 'aborted';
    return {
      outcome: timedOut ? 'timeout' : 'unreachable',
      detail: { ...NO_DETAIL, host, message: failure.error.message },
    };
  }
  const { reply } = failure;
  const detail = {
    host,
    code: reply.code,
    enhanced_status: reply.enhanced ?? null,
    message: reply.lines.join(' '),
    tls: false,
  };
  // A refusal before RCPT is about us (our IP, HELO or sender), never about the mailbox.
  if (
    reply.code >= 500 &&
    (reply.enhanced?.startsWith('5.7.') || /block|spam|policy|denied|reputation/i.test(detail.message))
  ) {
    return { outcome: 'blocked_by_policy', detail };
  }
  return { outcome: reply.code >= 400 && reply.code < 500 ? 'temporary_failure' : 'unreachable', detail };
}
