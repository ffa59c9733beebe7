import type { MailHost } from '../dns/mail-hosts.js';
import { classifyRcptReply, type RcptOutcome } from './classify-reply.js';
import type { KeyedLimiter } from './keyed-limiter.js';
import type { SmtpReply } from './reply.js';
import {
  MailFromRefusedError,
  type OpenSession,
  openSession,
  type SessionFailure,
  type SessionSettings,
} from './session.js';

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

/** Results of probing several domains that share MX hosts; catchAll per domain asked about. */
export interface GroupProbe {
  results: Map<string, ProbeResult>;
  catchAll: Map<string, boolean | null>;
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

/** See probeAddress: the pause between closing a session and handing its slot on. */
const RELEASE_PAUSE_MS = 10;

const NO_DETAIL: SmtpDetail = { host: null, code: null, enhanced_status: null, message: null, tls: false };

/** probeMailGroup for one domain: every recipient, and the catch-all question. */
export async function probeDomain(
  domain: string,
  hosts: readonly MailHost[],
  recipients: readonly string[],
  context: ProbeContext,
): Promise<DomainProbe> {
  const probe = await probeMailGroup(hosts, new Map([[domain, recipients]]), new Set([domain]), context);
  return { results: probe.results, catchAll: probe.catchAll.get(domain) ?? null };
}

/**
 * Asks the MX hosts shared by a group of domains, in order, about each recipient, carrying
 * recipients of several domains in one session (one transaction may name recipients in any
 * domain the host serves), then asks about a synthetic address in each domain of `askCatchAll`
 * that has a recipient not rejected outright, to detect catch-all. A host that refuses the
 * connection, greets with 4xx/5xx or times out is skipped for the next one (RFC 5321 §5.1).
 */
export async function probeMailGroup(
  hosts: readonly MailHost[],
  recipientsByDomain: ReadonlyMap<string, readonly string[]>,
  askCatchAll: ReadonlySet<string>,
  context: ProbeContext,
): Promise<GroupProbe> {
  const results = new Map<string, ProbeResult>();
  const catchAll = new Map<string, boolean | null>();
  const domainOf = new Map<string, string>();
  for (const [domain, recipients] of recipientsByDomain)
    for (const recipient of recipients) domainOf.set(recipient, domain);
  const pending = [...domainOf.keys()];
  const catchAllPending = new Set([...askCatchAll].filter((domain) => recipientsByDomain.has(domain)));
  const synthetics = new Map<string, string>();
  for (const domain of catchAllPending) {
    const synthetic = `${context.syntheticLocalPart()}@${domain}`;
    synthetics.set(synthetic, domain);
  }
  let lastFailure: { outcome: ProbeOutcome; detail: SmtpDetail } = {
    outcome: 'unreachable',
    detail: NO_DETAIL,
  };

  // Worth asking once one of the domain's own recipients was not rejected outright (a domain
  // that rejects them all is plainly not catch-all): as early as that, so the question rides in
  // a session that is open anyway. Claimed here, put back on failure.
  const claimSynthetic = (): string | undefined => {
    for (const [synthetic, domain] of synthetics) {
      if (!catchAllPending.has(domain)) continue;
      const recipients = recipientsByDomain.get(domain) ?? [];
      const worthAsking = recipients.some((recipient) => {
        const outcome = results.get(recipient)?.outcome;
        return outcome !== undefined && outcome !== 'mailbox_not_found';
      });
      if (worthAsking) {
        catchAllPending.delete(domain);
        return synthetic;
      }
    }
    return undefined;
  };
  const syntheticReady = (): boolean => {
    const synthetic = claimSynthetic();
    if (synthetic === undefined) return false;
    catchAllPending.add(synthetics.get(synthetic) as string);
    return true;
  };
  const hasWork = () => pending.length > 0 || syntheticReady();
  // Questions claimed by a session but not answered go back to the front of the queue.
  const giveBack = (recipient: string) => {
    const domain = synthetics.get(recipient);
    if (domain !== undefined) catchAllPending.add(domain);
    else pending.unshift(recipient);
  };

  for (const host of hosts) {
    if (!hasWork()) break;
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

  // Runs as many parallel sessions against one MX address as its limit allows and the work
  // needs, until nothing is pending or the address fails.
  async function probeAddress(
    hostName: string,
    address: string,
  ): Promise<'done' | 'next_address' | 'next_host'> {
    const perSession = Math.min(
      context.maxRcptsPerSession,
      context.learnedLimits.get(address) ?? Number.POSITIVE_INFINITY,
    );
    const workers = Math.max(
      1,
      Math.min(context.limiter.perKey, Math.ceil((pending.length + catchAllPending.size) / perSession)),
    );
    let verdict: 'next_address' | 'next_host' | null = null;
    const worker = async () => {
      while (verdict === null && hasWork()) {
        let release: () => void;
        try {
          release = await context.limiter.acquire(address, context.signal);
        } catch {
          verdict = 'next_host';
          return;
        }
        try {
          // Another session may have finished the work while this one waited for its slot.
          if (verdict !== null || !hasWork()) return;
          const opened = await openSession(address, hostName, context.settings, context.signal);
          if ('failure' in opened) {
            lastFailure = describeFailure(hostName, opened.failure);
            // A refused connection may be one dead address of several; anything else condemns the host.
            verdict ??=
              opened.failure.kind === 'connection' && opened.failure.error.kind === 'connect_failed'
                ? 'next_address'
                : 'next_host';
            return;
          }
          if ((await runSession(opened.session, hostName, address)) === 'dropped') verdict ??= 'next_host';
        } finally {
          // A short pause lets the server process its side of the close before the slot is
          // handed on: a busy MTA may accept our next connection before it has reaped the last
          // one, and would then count one connection more than our limit.
          await new Promise((resolve) => setTimeout(resolve, RELEASE_PAUSE_MS));
          release();
        }
      }
    };
    await Promise.all(Array.from({ length: workers }, worker));
    return hasWork() ? (verdict ?? 'next_host') : 'done';
  }

  // Takes up to `count` questions: pending recipients first, then catch-all questions that are due.
  function claim(count: number): string[] {
    const batch = pending.splice(0, count);
    for (let synthetic = batch.length < count ? claimSynthetic() : undefined; synthetic !== undefined; ) {
      batch.push(synthetic);
      synthetic = batch.length < count ? claimSynthetic() : undefined;
    }
    return batch;
  }

  // Asks as many questions as the session allows, a batch per round trip when the server
  // pipelines. Returns 'dropped' if the server went away or refuses every recipient.
  async function runSession(
    session: OpenSession,
    hostName: string,
    address: string,
  ): Promise<'ok' | 'dropped'> {
    let limit = Math.min(
      context.maxRcptsPerSession,
      context.learnedLimits.get(address) ?? Number.POSITIVE_INFINITY,
    );
    const pipelining = session.capabilities.has('PIPELINING');
    let asked = 0;
    let batch: string[] = [];
    let answered = 0;
    try {
      while (asked < limit) {
        batch = claim(pipelining ? limit - asked : 1);
        if (batch.length === 0) break;
        answered = 0;
        let refusedAll = false;
        await session.rcptMany(batch, (reply) => {
          const recipient = batch[answered++] as string;
          const outcome = classifyRcptReply(reply);
          if (outcome === 'too_many_recipients') {
            giveBack(recipient);
            // The server caps recipients per session: remember the cap (at least 1), reconnect.
            if (limit > asked) context.learnedLimits.set(address, Math.max(1, asked));
            limit = asked;
            if (asked === 0) {
              // Not even one recipient: the host is refusing us, not counting recipients.
              refusedAll = true;
              lastFailure = { outcome: 'temporary_failure', detail: detailOf(hostName, reply, session) };
            }
            return;
          }
          asked++;
          const syntheticDomain = synthetics.get(recipient);
          if (syntheticDomain !== undefined) {
            catchAll.set(
              syntheticDomain,
              outcome === 'accepted' ? true : outcome === 'mailbox_not_found' ? false : null,
            );
          } else {
            results.set(recipient, { outcome, detail: detailOf(hostName, reply, session) });
          }
        });
        batch = [];
        if (refusedAll) {
          await session.close();
          return 'dropped';
        }
      }
      await session.close();
      return 'ok';
    } catch (error) {
      // Questions sent but not answered go back to the queue (in their order) for another session.
      for (const recipient of batch.slice(answered).reverse()) giveBack(recipient);
      await session.close();
      if (error instanceof MailFromRefusedError) {
        lastFailure = describeFailure(hostName, { kind: 'reply', stage: 'mail_from', reply: error.reply });
        return 'dropped';
      }
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
