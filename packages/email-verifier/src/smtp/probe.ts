import { setMaxListeners } from 'node:events';
import type { MailHost } from '../dns/mail-hosts.js';
import { mxProvider } from '../providers/mail-providers.js';
import {
  classifyRcptReply,
  classifySessionRefusal,
  type RcptOutcome,
  withSyntheticEvidence,
} from './classify-reply.js';
import type { KeyedLimiter } from './keyed-limiter.js';
import type { PoolProxy, ProxyPool } from './proxy-pool.js';
import type { SmtpReply } from './reply.js';
import {
  MailFromRefusedError,
  type OpenSession,
  openSession,
  type SessionFailure,
  type SessionSettings,
} from './session.js';

/** The verdict of the probe for one mailbox. */
export type ProbeOutcome =
  | Exclude<RcptOutcome, 'too_many_recipients'>
  | 'timeout'
  | 'unreachable'
  | 'proxy_unavailable';

/** What the last SMTP exchange about a mailbox looked like; goes into the result's `smtp` block. */
export interface SmtpDetail {
  host: string | null;
  code: number | null;
  enhanced_status: string | null;
  message: string | null;
  tls: boolean;
  /** The SOCKS5 proxy that carried the session (its label or host:port); absent without one. */
  proxy?: string;
}

export interface ProbeResult {
  outcome: ProbeOutcome;
  detail: SmtpDetail;
}

/** A caller's answers: per recipient, and per domain asked about catch-all (null: not told). */
export interface GroupProbe {
  results: Map<string, ProbeResult>;
  catchAll: Map<string, boolean | null>;
}

/** What every probe group of a verifier shares: settings, limits, and how to reach an MX. */
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
  /** SOCKS5 proxies every session goes through, one chosen per session; direct without. */
  proxies?: ProxyPool;
}

/** See probeAddress: the pause between closing a session and handing its slot on. */
const RELEASE_PAUSE_MS = 10;

const NO_DETAIL: SmtpDetail = { host: null, code: null, enhanced_status: null, message: null, tls: false };

/** A running probe of the MX hosts shared by a group of domains, which later callers may join. */
export interface MailGroup {
  /**
   * Adds recipients (and catch-all questions) to the group's queue and resolves with their
   * answers, or the answers so far plus `timeout` for the rest when `signal` aborts. Null once
   * the group has finished: start a new one.
   */
  join(
    recipientsByDomain: ReadonlyMap<string, readonly string[]>,
    askCatchAll: ReadonlySet<string>,
    signal: AbortSignal,
    options?: { urgent?: boolean },
  ): Promise<GroupProbe> | null;
}

interface Participant {
  recipients: ReadonlySet<string>;
  catchAllDomains: ReadonlySet<string>;
  /** Recipients not answered yet. */
  remaining: number;
  /** Resolves the caller's promise (once); `abandoned` when its signal aborted. */
  settle: (abandoned?: boolean) => void;
}

/**
 * Asks the MX hosts shared by a group of domains, in order, about each recipient, carrying
 * recipients of several domains in one session (one transaction may name recipients in any
 * domain the host serves), and asks about a synthetic address in each domain of a caller's
 * `askCatchAll` that has a recipient not rejected outright, to detect catch-all. A host that
 * refuses the connection, greets with 4xx/5xx or times out is skipped for the next one
 * (RFC 5321 §5.1). Callers that join while it runs (other chunks of a batch job, concurrent
 * requests) share its sessions, so sessions stay full whatever the size of each call; the
 * sessions stop when every caller has given up.
 */
export function createMailGroup(
  hosts: readonly MailHost[],
  context: ProbeContext,
  onClosed?: () => void,
): MailGroup {
  const results = new Map<string, ProbeResult>();
  const catchAll = new Map<string, boolean | null>();
  const recipientsByDomain = new Map<string, Set<string>>();
  const domainOf = new Map<string, string>();
  /** Everyone waiting for a recipient's answer. */
  const waiting = new Map<string, Participant[]>();
  let pending: string[] = [];
  const catchAllPending = new Set<string>();
  /** Domains with a recipient not rejected outright: their catch-all question is worth asking. */
  const worthAsking = new Set<string>();
  const synthetics = new Map<string, string>();
  const syntheticOf = new Map<string, string>();
  /** What each domain's synthetic recipient was told: evidence for reading its real recipients. */
  const syntheticReplies = new Map<string, SmtpDetail>();
  const participants = new Set<Participant>();
  const controller = new AbortController();
  // Every session and slot wait of the group listens to this one signal; that is by design.
  setMaxListeners(0, controller.signal);
  let closed = false;
  let running = false;
  let lastFailure: { outcome: ProbeOutcome; detail: SmtpDetail } = {
    outcome: 'unreachable',
    detail: NO_DETAIL,
  };

  // Worth asking once one of the domain's own recipients was not rejected outright (a domain
  // that rejects them all is plainly not catch-all): as early as that, so the question rides in
  // a session that is open anyway. Claimed here, put back on failure.
  const claimSynthetic = (): string | undefined => {
    for (const domain of catchAllPending) {
      if (worthAsking.has(domain)) {
        catchAllPending.delete(domain);
        return syntheticOf.get(domain);
      }
    }
    return undefined;
  };
  const syntheticReady = (): boolean => [...catchAllPending].some((domain) => worthAsking.has(domain));
  const hasWork = () => pending.length > 0 || syntheticReady();
  // Questions no session has claimed yet: the queue, and the catch-all questions that are due.
  const unclaimed = () =>
    pending.length + [...catchAllPending].filter((domain) => worthAsking.has(domain)).length;
  // Questions claimed by a session but not answered go back to the front of the queue.
  const giveBack = (recipient: string) => {
    const domain = synthetics.get(recipient);
    if (domain !== undefined) catchAllPending.add(domain);
    else if (!results.has(recipient) && waiting.has(recipient)) pending.unshift(recipient);
  };

  // A participant is served once its recipients are answered and none of its catch-all
  // questions is still worth waiting for (asked and unanswered, or now worth asking).
  const settleReady = () => {
    for (const participant of participants) {
      if (participant.remaining > 0) continue;
      const waitsForCatchAll = [...participant.catchAllDomains].some(
        (domain) =>
          !catchAll.has(domain) &&
          (catchAllPending.has(domain) ? worthAsking.has(domain) : syntheticOf.has(domain)),
      );
      if (!waitsForCatchAll) participant.settle();
    }
  };
  // Only answers someone waits for are kept (an answer arriving after its callers left is dropped).
  const answer = (recipient: string, result: ProbeResult) => {
    if (results.has(recipient) || !waiting.has(recipient)) return;
    results.set(recipient, result);
    const domain = domainOf.get(recipient);
    if (domain !== undefined && result.outcome !== 'mailbox_not_found') worthAsking.add(domain);
    for (const participant of waiting.get(recipient) ?? []) participant.remaining--;
    waiting.delete(recipient);
  };

  // A group can live as long as callers keep joining (a batch job, a busy server): what no
  // remaining caller needs is forgotten, so its memory follows the work in hand.
  const forget = (leaving: Participant) => {
    const wanted = (recipient: string) =>
      [...participants].some((participant) => participant.recipients.has(recipient));
    const touched = new Set<string>();
    for (const recipient of leaving.recipients) {
      if (wanted(recipient)) continue;
      results.delete(recipient);
      const domain = domainOf.get(recipient);
      domainOf.delete(recipient);
      if (domain === undefined) continue;
      recipientsByDomain.get(domain)?.delete(recipient);
      touched.add(domain);
    }
    for (const domain of touched) {
      if ((recipientsByDomain.get(domain)?.size ?? 0) > 0) continue;
      recipientsByDomain.delete(domain);
      const synthetic = syntheticOf.get(domain);
      if (synthetic !== undefined) synthetics.delete(synthetic);
      syntheticOf.delete(domain);
      syntheticReplies.delete(domain);
      catchAllPending.delete(domain);
      catchAll.delete(domain);
      worthAsking.delete(domain);
    }
  };

  async function run(): Promise<void> {
    try {
      for (const host of hosts) {
        if (!hasWork() || controller.signal.aborted) return;
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
        for (let index = 0; index < addresses.length && !controller.signal.aborted; ) {
          const outcome = await probeAddress(host.host, addresses[index] as string);
          if (outcome === 'give_up') return;
          if (outcome === 'next_host') break;
          // Done here unless someone joined meanwhile: then this healthy address serves them too.
          if (outcome === 'done' && !hasWork()) return;
          if (outcome === 'next_address') index++;
        }
      }
    } finally {
      // Synchronously with the last hasWork() check, so no caller joins a finished group.
      closed = true;
      onClosed?.();
      const failure = controller.signal.aborted
        ? { outcome: 'timeout' as const, detail: lastFailure.detail }
        : lastFailure;
      for (const recipient of pending) answer(recipient, failure);
      pending = [];
      catchAllPending.clear();
      for (const participant of participants) {
        participant.remaining = 0;
        participant.settle();
      }
    }
  }

  // RCPTs per session at this address: ours, or the lower limit it taught us with 452 4.5.3.
  const rcptLimit = (address: string) =>
    Math.min(context.maxRcptsPerSession, context.learnedLimits.get(address) ?? Number.POSITIVE_INFINITY);

  /** The MX address being worked on, and its sessions; joiners may add sessions to it. */
  let current:
    | {
        hostName: string;
        address: string;
        workers: number;
        /** Sessions connecting: each claims up to a session's worth of questions once ready. */
        opening: number;
        /** Questions the sessions already asking can still take (they claim more after each batch). */
        spare: number;
        /** `give_up`: no proxy is left to reach any MX through. */
        verdict: 'next_address' | 'next_host' | 'give_up' | null;
        allDone: () => void;
      }
    | undefined;

  // Opens as many parallel sessions to the current address as its limit allows and the queue
  // needs: when the group starts on an address, and again whenever a caller joins with more.
  const addWorkers = () => {
    const state = current;
    if (!state || state.verdict !== null || controller.signal.aborted) return;
    const perSession = rcptLimit(state.address);
    const needed = Math.min(
      sessionCapacity(state.hostName),
      Math.ceil((pending.length + catchAllPending.size) / perSession),
    );
    while (state.workers < Math.max(1, needed)) {
      state.workers++;
      void worker(state).finally(() => {
        state.workers--;
        if (state.workers === 0) state.allDone();
      });
    }
  };

  const settingsFor = (proxy: PoolProxy | null): SessionSettings =>
    proxy ? proxySettings(context.settings, proxy) : context.settings;

  // Sessions one MX address may have at once: its limit, or through a pool the sum of the
  // per-MX limits of the proxies that may carry them (each proxy is its own client to the MX).
  const sessionCapacity = (hostName: string) => {
    const pool = context.proxies;
    if (!pool) return context.limiter.perKey;
    const usable = pool.candidates(mxProvider(hostName));
    return Math.max(
      1,
      usable.reduce((sum, proxy) => sum + proxy.perHostConcurrency, 0),
    );
  };

  async function worker(state: NonNullable<typeof current>): Promise<void> {
    const { hostName, address } = state;
    const pool = context.proxies;
    const provider = pool ? mxProvider(hostName) : null;
    while (state.verdict === null && hasWork()) {
      // Through a pool, the slot is per (proxy, MX address): each proxy has its own limits.
      let proxy: PoolProxy | null = null;
      if (pool) {
        proxy = pool.choose(
          provider,
          // At its connection limit, or its session rate would make this one wait: try the next.
          (candidate) =>
            context.limiter.activeFor(slotKey(candidate, address)) >= candidate.perHostConcurrency ||
            pool.paceDelay(candidate, address) > 0,
        );
        if (!proxy) {
          lastFailure = {
            outcome: 'proxy_unavailable',
            detail: { ...NO_DETAIL, host: hostName, message: pool.describeOutage(provider) },
          };
          state.verdict ??= 'give_up';
          return;
        }
      }
      let release: () => void;
      try {
        release = await context.limiter.acquire(
          proxy ? slotKey(proxy, address) : address,
          controller.signal,
          proxy ? { limit: proxy.perHostConcurrency } : undefined,
        );
      } catch {
        state.verdict = 'next_host';
        return;
      }
      try {
        // It may have gone out of the pool while this session waited for its slot.
        if (pool && proxy && !pool.isAvailable(proxy)) continue;
        // Another session may have finished the work while this one waited for its slot, sessions
        // still connecting will claim up to a session's worth each, and sessions asking with room
        // left claim more after each batch, a round trip away (opening one takes four): open one
        // more only for work beyond all that. (Two slots freed at once with a few questions left
        // used to open two sessions, one of which greeted, negotiated TLS and quit with nothing
        // to ask; so did a catch-all question falling due while a half-full session was asking.)
        const spoken = state.opening * rcptLimit(address) + state.spare;
        if (state.verdict !== null || unclaimed() <= spoken) return;
        state.opening++;
        let opened: Awaited<ReturnType<typeof openSession>>;
        try {
          if (pool && proxy) await pool.pace(proxy, address, controller.signal);
          opened = await openSession(address, hostName, settingsFor(proxy), controller.signal);
        } finally {
          // runSession claims its first questions synchronously, before anything else runs.
          state.opening--;
        }
        if ('failure' in opened) {
          // The proxy broke, not the MX: out of the pool, and the session is tried through another.
          if (
            pool &&
            proxy &&
            opened.failure.kind === 'connection' &&
            opened.failure.error.kind === 'proxy_failed' &&
            !controller.signal.aborted
          ) {
            pool.failed(proxy, opened.failure.error.message);
            continue;
          }
          lastFailure = describeFailure(hostName, opened.failure, proxy?.label);
          // A refused connection may be one dead address of several; anything else condemns the host.
          state.verdict ??=
            opened.failure.kind === 'connection' && opened.failure.error.kind === 'connect_failed'
              ? 'next_address'
              : 'next_host';
          return;
        }
        if (pool && proxy) pool.succeeded(proxy);
        if ((await runSession(opened.session, hostName, address, state, proxy?.label)) === 'dropped')
          state.verdict ??= 'next_host';
      } finally {
        // A short pause lets the server process its side of the close before the slot is
        // handed on: a busy MTA may accept our next connection before it has reaped the last
        // one, and would then count one connection more than our limit.
        await new Promise((resolve) => setTimeout(resolve, RELEASE_PAUSE_MS));
        release();
      }
    }
  }

  // Works one MX address until nothing is pending or the address fails.
  async function probeAddress(
    hostName: string,
    address: string,
  ): Promise<'done' | 'next_address' | 'next_host' | 'give_up'> {
    const state: NonNullable<typeof current> = {
      hostName,
      address,
      workers: 0,
      opening: 0,
      spare: 0,
      verdict: null,
      allDone: () => {},
    };
    current = state;
    try {
      // Work that arrives after the sessions ended (a caller joined) starts them again.
      while (state.verdict === null && hasWork() && !controller.signal.aborted) {
        const finished = new Promise<void>((resolve) => {
          state.allDone = resolve;
        });
        addWorkers();
        if (state.workers > 0) await finished;
      }
    } finally {
      current = undefined;
    }
    if (state.verdict !== null) return state.verdict;
    return hasWork() ? 'next_host' : 'done';
  }

  // Takes up to `count` questions: the catch-all questions that are due first (one per domain,
  // and a caller is not served before its answer, so they must not wait behind a long queue of
  // other callers' recipients), then pending recipients.
  function claim(count: number): string[] {
    const batch: string[] = [];
    for (let synthetic = claimSynthetic(); synthetic !== undefined; ) {
      batch.push(synthetic);
      synthetic = batch.length < count ? claimSynthetic() : undefined;
    }
    batch.push(...pending.splice(0, count - batch.length));
    return byDomain(batch);
  }

  // Asks as many questions as the session allows, a batch per round trip when the server
  // pipelines. Returns 'dropped' if the server went away or refuses every recipient.
  async function runSession(
    session: OpenSession,
    hostName: string,
    address: string,
    state: NonNullable<typeof current>,
    proxy: string | undefined,
  ): Promise<'ok' | 'dropped'> {
    let limit = rcptLimit(address);
    const pipelining = session.capabilities.has('PIPELINING');
    let asked = 0;
    let batch: string[] = [];
    let answered = 0;
    // What this session may still claim, counted in state.spare while it runs.
    let room = limit;
    state.spare += room;
    const shrinkRoom = (to: number) => {
      state.spare -= room - to;
      room = to;
    };
    try {
      while (asked < limit) {
        batch = claim(pipelining ? limit - asked : 1);
        if (batch.length === 0) break;
        shrinkRoom(room - batch.length);
        answered = 0;
        let refusedAll = false;
        // A batch that fills the session is its last: QUIT goes with it. (A smaller one leaves
        // the session open, as its answers may make a catch-all question due.)
        const quit = pipelining && asked + batch.length >= limit;
        const onReply = (reply: SmtpReply) => {
          const recipient = batch[answered++] as string;
          const outcome = classifyRcptReply(reply);
          if (outcome === 'too_many_recipients') {
            giveBack(recipient);
            // The server caps recipients per session: remember the cap (at least 1), reconnect.
            if (limit > asked) context.learnedLimits.set(address, Math.max(1, asked));
            limit = asked;
            shrinkRoom(0);
            if (asked === 0) {
              // Not even one recipient: the host is refusing us, not counting recipients.
              refusedAll = true;
              lastFailure = {
                outcome: 'temporary_failure',
                detail: detailOf(hostName, reply, session, proxy),
              };
            }
            return;
          }
          asked++;
          const syntheticDomain = synthetics.get(recipient);
          if (syntheticDomain !== undefined) {
            syntheticReplies.set(syntheticDomain, detailOf(hostName, reply, session, proxy));
            catchAll.set(
              syntheticDomain,
              outcome === 'accepted' ? true : outcome === 'mailbox_not_found' ? false : null,
            );
          } else {
            answer(recipient, { outcome, detail: detailOf(hostName, reply, session, proxy) });
          }
        };
        await session.rcptMany(batch, onReply, { quit });
        batch = [];
        settleReady();
        if (refusedAll) {
          shrinkRoom(0);
          await session.close();
          return 'dropped';
        }
        if (quit) break;
      }
      shrinkRoom(0);
      await session.close();
      return 'ok';
    } catch (error) {
      shrinkRoom(0);
      // Questions sent but not answered go back to the queue (in their order) for another session.
      for (const recipient of batch.slice(answered).reverse()) giveBack(recipient);
      settleReady();
      await session.close();
      if (error instanceof MailFromRefusedError) {
        lastFailure = describeFailure(
          hostName,
          { kind: 'reply', stage: 'mail_from', reply: error.reply },
          proxy,
        );
        return 'dropped';
      }
      lastFailure = {
        outcome:
          controller.signal.aborted || (error as { kind?: string }).kind === 'timeout'
            ? 'timeout'
            : 'unreachable',
        detail: {
          ...NO_DETAIL,
          host: hostName,
          message: (error as Error).message,
          tls: session.connection.tls,
          ...(proxy === undefined ? {} : { proxy }),
        },
      };
      return 'dropped';
    } finally {
      shrinkRoom(0);
    }
  }

  return {
    join(requested, askCatchAll, signal, { urgent = false } = {}) {
      if (closed || controller.signal.aborted) return null;
      const recipients = new Set<string>();
      for (const [domain, list] of requested) {
        let known = recipientsByDomain.get(domain);
        if (!known) {
          known = new Set();
          recipientsByDomain.set(domain, known);
        }
        for (const recipient of list) {
          recipients.add(recipient);
          known.add(recipient);
          domainOf.set(recipient, domain);
        }
      }
      const catchAllDomains = new Set([...askCatchAll].filter((domain) => requested.has(domain)));
      for (const domain of catchAllDomains) {
        if (syntheticOf.has(domain)) continue;
        const synthetic = `${context.syntheticLocalPart()}@${domain}`;
        synthetics.set(synthetic, domain);
        syntheticOf.set(domain, synthetic);
        catchAllPending.add(domain);
      }
      return new Promise<GroupProbe>((resolve) => {
        const participant: Participant = {
          recipients,
          catchAllDomains,
          remaining: 0,
          settle: (abandoned = false) => {
            if (!participants.delete(participant)) return;
            signal.removeEventListener('abort', onAbort);
            const own = new Map<string, ProbeResult>();
            const gaveUp = { outcome: 'timeout' as const, detail: lastFailure.detail };
            const unasked = new Set<string>();
            for (const recipient of recipients) {
              const result = results.get(recipient);
              const synthetic = syntheticReplies.get(domainOf.get(recipient) ?? '');
              own.set(recipient, result ? withSyntheticEvidence(result, synthetic) : gaveUp);
              // Nobody else waiting: drop it from the queue rather than ask for nobody.
              const others = (waiting.get(recipient) ?? []).filter((other) => other !== participant);
              if (others.length > 0) waiting.set(recipient, others);
              else if (waiting.delete(recipient)) unasked.add(recipient);
            }
            if (unasked.size > 0) pending = pending.filter((queued) => !unasked.has(queued));
            const ownCatchAll = new Map<string, boolean | null>();
            for (const domain of catchAllDomains) ownCatchAll.set(domain, catchAll.get(domain) ?? null);
            forget(participant);
            resolve({ results: own, catchAll: ownCatchAll });
            // The last caller gave up: stop the sessions instead of asking for nobody. (A caller
            // served in full leaves the sessions to end with a polite QUIT.)
            if (abandoned && participants.size === 0 && !closed) controller.abort(signal.reason);
          },
        };
        const onAbort = () => participant.settle(true);
        const queued: string[] = [];
        for (const recipient of new Set(interleaved(requested))) {
          if (results.has(recipient)) continue;
          participant.remaining++;
          const others = waiting.get(recipient);
          if (others) others.push(participant);
          else {
            waiting.set(recipient, [participant]);
            queued.push(recipient);
          }
        }
        // An urgent caller (one address, someone waiting on it) goes before a batch's backlog.
        if (urgent) pending.unshift(...queued);
        else pending.push(...queued);
        participants.add(participant);
        if (signal.aborted) return participant.settle(true);
        signal.addEventListener('abort', onAbort, { once: true });
        settleReady();
        if (!running) {
          running = true;
          void run();
        } else addWorkers();
      });
    },
  };
}

/**
 * The recipients of several domains in turns (a1, b1, c1, a2, b2, …). A domain's catch-all
 * question is due once one of its recipients was answered; queued domain after domain, the last
 * domain's first answer would come in the last round of sessions and its question would need a
 * session of its own at the end. In turns, every domain is answered in the first round.
 */
function interleaved(byDomain: ReadonlyMap<string, readonly string[]>): string[] {
  const lists = [...byDomain.values()];
  const longest = Math.max(0, ...lists.map((list) => list.length));
  const out: string[] = [];
  for (let index = 0; index < longest; index++)
    for (const list of lists) if (index < list.length) out.push(list[index] as string);
  return out;
}

// One settings object per (settings, proxy): sessions only read them.
const settingsCache = new WeakMap<SessionSettings, Map<PoolProxy, SessionSettings>>();
function proxySettings(settings: SessionSettings, proxy: PoolProxy): SessionSettings {
  let byProxy = settingsCache.get(settings);
  if (!byProxy) {
    byProxy = new Map();
    settingsCache.set(settings, byProxy);
  }
  let own = byProxy.get(proxy);
  if (!own) {
    own = { ...settings, socketFactory: proxy.socketFactory };
    byProxy.set(proxy, own);
  }
  return own;
}

/** The key of a limiter slot for a session to an MX address through a proxy. */
const slotKey = (proxy: PoolProxy, address: string) => `${proxy.label}|${address}`;

function detailOf(host: string, reply: SmtpReply, session: OpenSession, proxy?: string): SmtpDetail {
  const detail: SmtpDetail = {
    host,
    code: reply.code,
    enhanced_status: reply.enhanced ?? null,
    message: reply.lines.join(' ').slice(0, 500),
    tls: session.connection.tls,
  };
  if (proxy !== undefined) detail.proxy = proxy;
  return detail;
}

function describeFailure(
  host: string,
  failure: SessionFailure,
  proxy?: string,
): { outcome: ProbeOutcome; detail: SmtpDetail } {
  const via = proxy === undefined ? {} : { proxy };
  if (failure.kind === 'connection') {
    const timedOut = failure.error.kind === 'timeout' || failure.error.kind === 'aborted';
    return {
      outcome: timedOut ? 'timeout' : 'unreachable',
      detail: { ...NO_DETAIL, host, message: failure.error.message, ...via },
    };
  }
  const { reply } = failure;
  const detail = {
    host,
    code: reply.code,
    enhanced_status: reply.enhanced ?? null,
    message: reply.lines.join(' '),
    tls: false,
    ...via,
  };
  // A refusal before RCPT is about us (our IP, HELO or sender), never about the mailbox.
  return { outcome: classifySessionRefusal(reply, failure.stage), detail };
}

/**
 * The same addresses with each domain's together, in order of first appearance: a session opens
 * a transaction per domain (see OpenSession.rcptMany), so a batch in turns across domains would
 * cost an RSET and a MAIL FROM per recipient.
 */
function byDomain(batch: string[]): string[] {
  const groups = new Map<string, string[]>();
  for (const address of batch) {
    const domain = address.slice(address.lastIndexOf('@') + 1).toLowerCase();
    const group = groups.get(domain);
    if (group) group.push(address);
    else groups.set(domain, [address]);
  }
  return groups.size <= 1 ? batch : [...groups.values()].flat();
}
