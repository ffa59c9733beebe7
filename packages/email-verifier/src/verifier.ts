import { setMaxListeners } from 'node:events';
import { createId, type EmailVerificationResult, ServiceError, type VerifyEmailOptions } from '@svc/core';
import { type Classification, classify } from './classify/classify.js';
import type { DomainStatus, ProbeVerdict, VerificationFacts } from './classify/facts.js';
import { addressesOf, type MailHosts, resolveMailHosts } from './dns/mail-hosts.js';
import { DnsQueryError } from './dns/resolver.js';
import type { ResolverHealthSnapshot } from './dns/resolver-health.js';
import { createLists, type DisposableMatch, type EmailLists } from './lists/create-lists.js';
import { identifyMailHosts } from './providers/mail-providers.js';
import { type CachedResult, type ResultCacheKey, resultCacheVariant } from './result-cache/result-cache.js';
import { CatchAllCache } from './smtp/catch-all-cache.js';
import { KeyedLimiter } from './smtp/keyed-limiter.js';
import {
  createMailGroup,
  type GroupProbe,
  type MailGroup,
  type ProbeContext,
  type SmtpDetail,
} from './smtp/probe.js';
import { suggestDomain } from './suggest/suggest-domain.js';
import { type ParsedAddress, parseAddress } from './syntax/parse-address.js';
import {
  type ResolvedVerifierOptions,
  resolveVerifierOptions,
  type VerifierOptions,
} from './verifier-options.js';

/** A verification result: the spec's fields (§2.1) plus what we also know. */
export interface VerificationResult extends EmailVerificationResult {
  /** `local@a-label-domain`, or null when the input is not an address. */
  normalized: string | null;
  /** A likely intended domain (`gmial.com` → `gmail.com`), or null. */
  suggestion: string | null;
  /** Why `is_disposable` is true (list entry or MX host), or null when it is false. */
  disposable_match: DisposableMatch | null;
  is_role_account: boolean;
  is_free_provider: boolean;
  /** The last SMTP exchange about this mailbox, or null when no probe ran. */
  smtp: SmtpDetail | null;
}

/** Thrown by verify() for input the API answers with 422; carries the full classified result. */
export class UnprocessableAddressError extends ServiceError {
  constructor(
    message: string,
    readonly result: VerificationResult,
  ) {
    super('unprocessable', message);
  }
}

/** Per-call settings that are not API options. */
export interface VerifyCall {
  /**
   * Whose result cache entries this call reads and writes (a server passes the account id, so
   * one account's results are never served to another). @default '' (the one namespace)
   */
  cacheNamespace?: string;
  /**
   * The `request_id` the results carry (a server passes its request's id, so it need not copy
   * each result to stamp it). @default a new `req_…` id per result
   */
  requestId?: string;
}

/** Progress of verifyMany: addresses finished so far out of all (unique) addresses. */
export type ProgressListener = (done: number, total: number) => void;

/** The most addresses one verifyMany call takes (the bulk endpoint's limit). */
export const MAX_BULK_ADDRESSES = 10_000;

/**
 * Refuses what verifyMany cannot take (not an array, more than MAX_BULK_ADDRESSES), with the
 * messages the bulk endpoint answers; every Verifier (the sandbox's too) checks with this.
 */
export function checkBulkAddresses(emails: unknown): asserts emails is readonly unknown[] {
  if (!Array.isArray(emails))
    throw new ServiceError('invalid_request', '"emails" must be an array of strings');
  if (emails.length > MAX_BULK_ADDRESSES) {
    throw new ServiceError(
      'invalid_request',
      `at most ${MAX_BULK_ADDRESSES} addresses per call, got ${emails.length}`,
    );
  }
}

export interface Verifier {
  /**
   * Verifies one address. Throws ServiceError `unprocessable` for a string that is not an address
   * or a domain with no MX hints, `upstream_timeout` when DNS fails or times out, and
   * `invalid_request` for malformed options.
   */
  verify(email: string, options?: VerifyEmailOptions, call?: VerifyCall): Promise<VerificationResult>;
  /**
   * Verifies up to 10,000 addresses: results in input order, duplicates verified once, DNS asked
   * once per domain, one SMTP session per MX for several recipients. Per-address problems are
   * results, never thrown errors. Aborting `signal` (a cancelled batch job, say) closes the SMTP
   * sessions at once and rejects with the signal's reason.
   */
  verifyMany(
    emails: readonly string[],
    options?: VerifyEmailOptions,
    events?: VerifyCall & { onProgress?: ProgressListener; signal?: AbortSignal },
  ): Promise<VerificationResult[]>;
  /**
   * Forgets the cached results of an address (every option variant) in the call's namespace, so
   * the next verification probes again; resolves to how many entries were dropped (0 without a
   * result cache). Throws `unprocessable` for a string that is not an address.
   */
  invalidateCached(email: string, call?: VerifyCall): Promise<number>;
  /**
   * The resolver's health as last checked (README "Resolver health"), or null when the check is
   * off. Starts a check in the background when one is due; never waits for it.
   */
  resolverHealth(): ResolverHealthSnapshot | null;
}

/** What the DNS stage found for a domain. */
interface DomainAnswer {
  status: DomainStatus;
  hosts: MailHosts['hosts'];
  error?: DnsQueryError;
}

interface Prepared {
  input: string;
  address: ParsedAddress | null;
  syntaxDetail: string | null;
  /** Why the domain is disposable by the lists (and overrides), or null. */
  disposable: DisposableMatch | null;
  role: boolean;
  free: boolean;
  suggestion: string | null;
}

/** Creates a verifier; see VerifierOptions for every setting and its default. */
export function createVerifier(options: VerifierOptions = {}): Verifier {
  const settings = resolveVerifierOptions(options);
  const lists = createLists(settings.lists);
  const limiter = new KeyedLimiter(settings.smtp.perHostConcurrency, settings.smtp.concurrency);
  const learnedLimits = new Map<string, number>();
  /** Groups probing now, by their MX hosts (see probeDomains). */
  const groups = new Map<string, MailGroup>();
  const catchAllCache = new CatchAllCache(settings.smtp.catchAllCacheMs, () => settings.clock().getTime());

  const prepare = (input: string): Prepared => prepareAddress(input, lists, settings);
  const resultCache = settings.resultCache;
  const now = () => settings.clock().getTime();
  /** verify() probes under way by cache entry, so concurrent calls for one address probe it once. */
  const probing = new Map<string, Promise<CachedResult & { result: VerificationResult }>>();

  /** The cache entry of a probed address, or null when its result is not cached (see README). */
  function cacheKeyOf(
    address: ParsedAddress,
    checks: Required<VerifyEmailOptions>,
    call: VerifyCall | undefined,
  ): ResultCacheKey | null {
    if (!resultCache || !checks.probe_mailbox || address.isAddressLiteral) return null;
    return {
      namespace: namespaceOf(call),
      address: addressKey(address),
      variant: resultCacheVariant(checks),
    };
  }

  const health = settings.resolverHealth;

  /**
   * domainStatus unless the resolver is unhealthy: then `dns_unavailable` without a question.
   * Feeds the health state, whose burst of failures starts a new check.
   */
  async function lookUp(domain: string): Promise<DomainAnswer> {
    if (!health) return domainStatus(domain);
    if ((await health.trust()).status === 'unhealthy') return UNAVAILABLE;
    const answer = await domainStatus(domain);
    health.observe(FAILED_LOOKUPS.has(answer.status));
    return answer;
  }

  /** A failed lookup as it stands once a check under way (or due after a burst) has ended. */
  async function judged(answer: DomainAnswer): Promise<DomainAnswer> {
    if (!health || !FAILED_LOOKUPS.has(answer.status)) return answer;
    return (await health.trust()).status === 'unhealthy' ? UNAVAILABLE : answer;
  }

  /** The 503 of a single verify while the resolver is not believed, naming it and what it denied. */
  function resolverUnavailable(domain: string): ServiceError {
    const snapshot = health?.snapshot();
    return new ServiceError(
      'upstream_timeout',
      `No verdict on ${domain}: ${snapshot?.message ?? 'the DNS resolver is not trusted'}. Verification resumes once it resolves its canary names again; svc doctor tells what is wrong.`,
    );
  }

  async function domainStatus(domain: string): Promise<DomainAnswer> {
    try {
      const found = await resolveMailHosts(domain, {
        resolver: settings.dns,
        isPublicAddress: settings.isPublicAddress,
        allowPrivateAddresses: settings.smtp.allowPrivateAddresses,
      });
      return found;
    } catch (error) {
      if (error instanceof DnsQueryError) return { status: 'dns_error', hosts: [], error };
      throw error;
    }
  }

  const probeContext: ProbeContext = {
    settings: settings.smtp,
    limiter,
    learnedLimits,
    maxRcptsPerSession: settings.smtp.maxRcptsPerSession,
    syntheticLocalPart: settings.syntheticLocalPart,
    proxies: settings.smtp.proxyPool ?? undefined,
    resolveAddresses: async (host) => {
      const addresses = await addressesOf(host, settings.dns);
      return settings.smtp.allowPrivateAddresses ? addresses : addresses.filter(settings.isPublicAddress);
    },
  };

  function finish(
    prepared: Prepared,
    checks: Required<VerifyEmailOptions>,
    domain: { status: DomainStatus; hosts: MailHosts['hosts'] } | null,
    probe: ProbeFinding | null,
    requestId: string | undefined,
  ): VerificationResult {
    // A mailbox is not called dead through a resolver that is not believed (its MX may be wrong).
    if (
      domain &&
      probe &&
      DEAD_MAILBOX.has(probe.verdict) &&
      health !== null &&
      health.snapshot().status === 'unhealthy'
    ) {
      domain = { status: 'dns_unavailable', hosts: domain.hosts };
    }
    // A domain on no list is still disposable when its mail goes to a disposable service's MX.
    const match =
      prepared.disposable ??
      (prepared.address !== null && domain?.status === 'accepts_mail'
        ? lists.disposableByMailHosts(prepared.address.asciiDomain, domain.hosts)
        : null);
    const disposable = match !== null;
    const facts: VerificationFacts = {
      syntaxValid: prepared.address !== null,
      addressLiteral: prepared.address?.isAddressLiteral ?? false,
      domainStatus: domain?.status ?? 'not_checked',
      disposable,
      role: prepared.role,
      free: prepared.free,
      typoSuggestion: prepared.suggestion,
      probeRequested: checks.probe_mailbox,
      probeOutcome: probe?.verdict ?? 'not_probed',
      catchAll: probe?.catchAll ?? null,
      checkDisposable: checks.check_disposable,
    };
    const verdict: Classification = classify(facts);
    return {
      email: prepared.input,
      deliverable: verdict.deliverable,
      state: verdict.state,
      quality_score: verdict.quality_score,
      reasons: [...verdict.reasons],
      is_disposable: verdict.is_disposable,
      is_catch_all: verdict.is_catch_all,
      mx: mxSummary(domain?.status === 'accepts_mail', domain?.hosts.map((host) => host.host) ?? []),
      checked_at: settings.clock().toISOString(),
      request_id: requestId ?? createId('req'),
      normalized: prepared.address?.normalized ?? null,
      suggestion: prepared.suggestion,
      disposable_match: verdict.is_disposable ? match : null,
      is_role_account: prepared.role,
      is_free_provider: prepared.free,
      smtp: probe?.detail ?? null,
    };
  }

  /**
   * Probes domains that share MX hosts together (their recipients share sessions) and asks the
   * catch-all question only of domains whose answer is not remembered.
   */
  async function probeDomains(
    hosts: MailHosts['hosts'],
    recipientsByDomain: Map<string, string[]>,
    signal: AbortSignal,
    options: { urgent?: boolean } = {},
  ): Promise<GroupProbe> {
    const askCatchAll = new Set(
      [...recipientsByDomain.keys()].filter((name) => catchAllCache.get(name) === undefined),
    );
    // Join the group already probing these MX hosts (another call, another chunk of a batch
    // job), or start one: callers share sessions, so each session carries its full load.
    const key = mailHostsKey(hosts);
    let joined = groups.get(key)?.join(recipientsByDomain, askCatchAll, signal, options);
    if (!joined) {
      const group: MailGroup = createMailGroup(hosts, probeContext, () => {
        if (groups.get(key) === group) groups.delete(key);
      });
      groups.set(key, group);
      joined = group.join(recipientsByDomain, askCatchAll, signal, options) as Promise<GroupProbe>;
    }
    const probe = await joined;
    for (const name of recipientsByDomain.keys()) {
      if (askCatchAll.has(name)) catchAllCache.set(name, probe.catchAll.get(name) ?? null);
      else probe.catchAll.set(name, catchAllCache.get(name) ?? null);
    }
    return probe;
  }

  /** The DNS stage and, when asked, the probe of one parsed address (verify() without its cache). */
  async function verifyNow(
    prepared: Prepared,
    checks: Required<VerifyEmailOptions>,
    requestId: string | undefined,
  ): Promise<VerificationResult> {
    const address = prepared.address as ParsedAddress;
    const domain = await judged(await lookUp(address.asciiDomain));
    if (domain.status === 'dns_unavailable') throw resolverUnavailable(address.asciiDomain);
    if (domain.error) {
      throw new ServiceError(
        'upstream_timeout',
        `DNS lookup for ${address.asciiDomain} failed: ${domain.error.message}`,
        {
          cause: domain.error,
        },
      );
    }
    if (domain.status !== 'accepts_mail') {
      const result = finish(prepared, checks, domain, null, requestId);
      throw new UnprocessableAddressError(
        `${address.asciiDomain} has no MX hints: ${NO_MX_TEXT[domain.status]}`,
        result,
      );
    }
    if (!checks.probe_mailbox) return finish(prepared, checks, domain, null, requestId);
    const probe = await probeDomains(
      domain.hosts,
      new Map([[address.asciiDomain, [address.normalized]]]),
      AbortSignal.timeout(settings.smtp.timeoutMs),
      // A single verify() is someone waiting: it goes before any batch backlog for its MX.
      { urgent: true },
    );
    const result = finish(
      prepared,
      checks,
      domain,
      probeFinding(probe, address.normalized, address.asciiDomain),
      requestId,
    );
    if (result.reasons.includes('dns_unavailable')) throw resolverUnavailable(address.asciiDomain);
    return result;
  }

  return {
    async verify(email, options, call) {
      const checks = checkOptions(options);
      if (typeof email !== 'string') throw new ServiceError('invalid_request', '"email" must be a string');
      const prepared = prepare(email);
      const requestId = call?.requestId;
      if (!prepared.address) {
        throw new UnprocessableAddressError(
          prepared.syntaxDetail ?? 'not an email address',
          finish(prepared, checks, null, null, requestId),
        );
      }
      const address = prepared.address;
      if (address.isAddressLiteral) return finish(prepared, checks, null, null, requestId);
      const cacheKey = cacheKeyOf(address, checks, call);
      if (!cacheKey) return verifyNow(prepared, checks, requestId);
      const flight = `${cacheKey.namespace}\u0000${cacheKey.address}\u0000${cacheKey.variant}`;
      if (!checks.fresh) {
        const [hit] = await (resultCache as NonNullable<typeof resultCache>).get([cacheKey], now());
        if (hit) return served(hit, email, requestId);
        // The same address being probed for another caller right now: its answer is this one's.
        const pending = probing.get(flight);
        if (pending) return served(await pending, email, requestId);
      }
      const pending = (async () => {
        const result = await verifyNow(prepared, checks, requestId);
        const cachedAt = now();
        await resultCache?.set([{ key: cacheKey, result }], cachedAt);
        return { result, cachedAt, expiresAt: cachedAt };
      })();
      probing.set(flight, pending);
      try {
        return (await pending).result;
      } finally {
        if (probing.get(flight) === pending) probing.delete(flight);
      }
    },

    async verifyMany(emails, options, events = {}) {
      const checks = checkOptions(options);
      checkBulkAddresses(emails);
      const { requestId } = events;
      // Duplicates (same normalized address) are verified once and share the result.
      const unique = new Map<string, Prepared>();
      const keys = emails.map((input) => {
        const prepared = prepare(typeof input === 'string' ? input : String(input));
        const key = prepared.address ? addressKey(prepared.address) : `invalid:${prepared.input}`;
        if (!unique.has(key)) unique.set(key, prepared);
        return key;
      });
      const total = unique.size;
      let done = 0;
      const results = new Map<string, VerificationResult>();
      const complete = (key: string, result: VerificationResult) => {
        results.set(key, result);
        done++;
        events.onProgress?.(done, total);
      };

      // Probed addresses answered by the cache skip DNS and SMTP; the others' results are stored
      // once the call has them all.
      const cacheKeys = new Map<string, ResultCacheKey>();
      for (const [key, prepared] of unique) {
        const cacheKey = prepared.address && cacheKeyOf(prepared.address, checks, events);
        if (cacheKey) cacheKeys.set(key, cacheKey);
      }
      if (cacheKeys.size > 0 && !checks.fresh) {
        const hits = await (resultCache as NonNullable<typeof resultCache>).get(
          [...cacheKeys.values()],
          now(),
        );
        let index = 0;
        for (const key of [...cacheKeys.keys()]) {
          const hit = hits[index++];
          if (!hit) continue;
          complete(key, served(hit, (unique.get(key) as Prepared).input, requestId));
          unique.delete(key);
          cacheKeys.delete(key);
        }
      }
      const toStore: Array<{ key: ResultCacheKey; result: VerificationResult }> = [];

      const byDomain = new Map<string, Array<[string, Prepared]>>();
      for (const [key, prepared] of unique) {
        if (!prepared.address || prepared.address.isAddressLiteral) {
          complete(key, finish(prepared, checks, null, null, requestId));
          continue;
        }
        const group = byDomain.get(prepared.address.asciiDomain) ?? [];
        group.push([key, prepared]);
        byDomain.set(prepared.address.asciiDomain, group);
      }

      events.signal?.throwIfAborted();
      const timeout = AbortSignal.timeout(settings.smtp.bulkTimeoutMs);
      const deadline = events.signal ? AbortSignal.any([timeout, events.signal]) : timeout;
      // Every probe group this call joins listens to this one signal; that is by design.
      setMaxListeners(0, deadline);
      // Each domain is probed as soon as its DNS answers, not once the slowest domain has: the
      // domains answered in one turn of the event loop join their MX hosts' probe together, and
      // domains on the same servers (as hosting providers and the big mail services host
      // thousands) share SMTP sessions, whichever turn they joined in.
      type Resolved = { domainName: string; group: Array<[string, Prepared]>; domain: DomainAnswer };
      const probeShared = async (hosts: MailHosts['hosts'], sharing: Resolved[]) => {
        const recipientsByDomain = new Map(
          sharing.map(({ domainName, group }) => [
            domainName,
            group.map(([, prepared]) => (prepared.address as ParsedAddress).normalized),
          ]),
        );
        const probe = await probeDomains(hosts, recipientsByDomain, deadline);
        for (const { domainName, group, domain } of sharing) {
          for (const [key, prepared] of group) {
            const recipient = (prepared.address as ParsedAddress).normalized;
            const result = finish(
              prepared,
              checks,
              domain,
              probeFinding(probe, recipient, domainName),
              requestId,
            );
            complete(key, result);
            const cacheKey = cacheKeys.get(key);
            if (cacheKey && !result.reasons.includes('dns_unavailable'))
              toStore.push({ key: cacheKey, result });
          }
        }
      };
      const probes: Array<Promise<void>> = [];
      let turn: Map<string, { hosts: MailHosts['hosts']; domains: Resolved[] }> | undefined;
      const startTurn = () => {
        const ready = turn;
        turn = undefined;
        for (const { hosts, domains } of ready?.values() ?? []) probes.push(probeShared(hosts, domains));
      };
      // Failed lookups wait for the end of the DNS stage: a burst of them starts a check of the
      // resolver, and a lying resolver's NXDOMAIN must not become a verdict before it ends.
      const failed: Array<{ group: Array<[string, Prepared]>; domain: DomainAnswer }> = [];
      await Promise.all(
        [...byDomain].map(async ([domainName, group]) => {
          const domain = await lookUp(domainName);
          if (health && FAILED_LOOKUPS.has(domain.status)) {
            failed.push({ group, domain });
            return;
          }
          if (!checks.probe_mailbox || domain.status !== 'accepts_mail') {
            for (const [key, prepared] of group)
              complete(key, finish(prepared, checks, domain, null, requestId));
            return;
          }
          if (!turn) {
            turn = new Map();
            setImmediate(startTurn);
          }
          const hostsKey = mailHostsKey(domain.hosts);
          const shared = turn.get(hostsKey) ?? { hosts: domain.hosts, domains: [] };
          shared.domains.push({ domainName, group, domain });
          turn.set(hostsKey, shared);
        }),
      );
      startTurn();
      for (const { group, domain } of failed) {
        const answer = await judged(domain);
        for (const [key, prepared] of group) complete(key, finish(prepared, checks, answer, null, requestId));
      }
      await Promise.all(probes);
      // The probes end early when aborted; their `smtp_timeout` answers are not results.
      events.signal?.throwIfAborted();
      if (toStore.length > 0) await resultCache?.set(toStore, now());
      return keys.map((key, index) => {
        const result = results.get(key) as VerificationResult;
        // A duplicate keeps its own spelling in `email`.
        return result.email === emails[index] ? result : { ...result, email: String(emails[index]) };
      });
    },

    async invalidateCached(email, call) {
      if (typeof email !== 'string') throw new ServiceError('invalid_request', '"email" must be a string');
      const prepared = prepare(email);
      if (!prepared.address)
        throw new ServiceError('unprocessable', prepared.syntaxDetail ?? 'not an email address');
      return resultCache ? resultCache.invalidate(addressKey(prepared.address), namespaceOf(call)) : 0;
    },

    resolverHealth() {
      return health?.snapshot() ?? null;
    },
  };
}

/** What a probe found for one recipient, as `finish` takes it. */
interface ProbeFinding {
  verdict: ProbeVerdict;
  detail: SmtpDetail | null;
  catchAll: boolean | null;
}

/** The finding for `recipient` of `domain` in a group's answers: unreachable when it has none. */
function probeFinding(probe: GroupProbe, recipient: string, domain: string): ProbeFinding {
  const outcome = probe.results.get(recipient);
  return {
    verdict: outcome?.outcome ?? 'unreachable',
    detail: outcome?.detail ?? null,
    catchAll: probe.catchAll.get(domain) ?? null,
  };
}

/**
 * One address however it was spelled: the normalised form (A-label domain, NFC local part),
 * lowercased. verifyMany verifies such addresses once, and the result cache keys them alike.
 */
function addressKey(address: ParsedAddress): string {
  return address.normalized.toLowerCase();
}

function namespaceOf(call: VerifyCall | undefined): string {
  const namespace = call?.cacheNamespace ?? '';
  if (typeof namespace !== 'string') throw new TypeError('cacheNamespace must be a string');
  return namespace;
}

/**
 * A cached result as a call returns it: the spelling and request id of this call, `checked_at`
 * of the check that produced it, and `cached_at` saying it came from the cache.
 */
function served(hit: CachedResult, email: string, requestId: string | undefined): VerificationResult {
  const result = hit.result as VerificationResult;
  return {
    ...result,
    // Entries stored before results named the provider get it from their MX hosts.
    mx: result.mx.provider === undefined ? mxSummary(result.mx.accepts_mail, result.mx.records) : result.mx,
    email,
    request_id: requestId ?? createId('req'),
    cached_at: new Date(hit.cachedAt).toISOString(),
  };
}

/** The result's `mx`: the hosts in the order they would be tried and who they belong to. */
function mxSummary(acceptsMail: boolean, records: string[]): VerificationResult['mx'] {
  return { accepts_mail: acceptsMail, records, ...identifyMailHosts(records) };
}

const NO_MX_TEXT: Record<DomainStatus, string> = {
  not_found: 'the domain does not exist (NXDOMAIN)',
  null_mx: 'the domain publishes a null MX and accepts no mail (RFC 7505)',
  no_mx_records: 'no MX records and no public A/AAAA address',
  accepts_mail: 'accepts mail',
  dns_error: 'DNS failed',
  dns_unavailable: 'the DNS resolver is not trusted',
  not_checked: 'not checked',
};

/** Lookups that say the domain cannot take mail, or nothing: the ones a lying resolver gives. */
const FAILED_LOOKUPS: ReadonlySet<DomainStatus> = new Set(['not_found', 'no_mx_records', 'dns_error']);

/** Probe verdicts that call a mailbox dead. */
const DEAD_MAILBOX: ReadonlySet<ProbeVerdict> = new Set(['mailbox_not_found', 'mailbox_disabled']);

const UNAVAILABLE: DomainAnswer = { status: 'dns_unavailable', hosts: [] };

function prepareAddress(input: string, lists: EmailLists, settings: ResolvedVerifierOptions): Prepared {
  const parsed = parseAddress(input, { allowUtf8LocalPart: settings.allowUtf8LocalPart });
  if (!parsed.ok) {
    return {
      input,
      address: null,
      syntaxDetail: parsed.detail,
      disposable: null,
      role: false,
      free: false,
      suggestion: null,
    };
  }
  const { address } = parsed;
  const literal = address.isAddressLiteral;
  return {
    input,
    address,
    syntaxDetail: null,
    disposable: literal ? null : lists.disposableMatch(address.asciiDomain),
    role: lists.isRole(address.local),
    free: !literal && lists.isFree(address.asciiDomain),
    suggestion: literal ? null : suggestDomain(address.asciiDomain),
  };
}

function checkOptions(options: VerifyEmailOptions | undefined): Required<VerifyEmailOptions> {
  if (options !== undefined && (typeof options !== 'object' || options === null || Array.isArray(options))) {
    throw new ServiceError('invalid_request', '"options" must be an object');
  }
  for (const name of Object.keys(options ?? {})) {
    if (name !== 'probe_mailbox' && name !== 'check_disposable' && name !== 'fresh') {
      throw new ServiceError(
        'invalid_request',
        `unknown option "${name}" (expected probe_mailbox, check_disposable, fresh)`,
      );
    }
  }
  const probe = options?.probe_mailbox ?? false;
  const disposable = options?.check_disposable ?? true;
  const fresh = options?.fresh ?? false;
  if (typeof probe !== 'boolean')
    throw new ServiceError('invalid_request', '"options.probe_mailbox" must be a boolean');
  if (typeof disposable !== 'boolean')
    throw new ServiceError('invalid_request', '"options.check_disposable" must be a boolean');
  if (typeof fresh !== 'boolean')
    throw new ServiceError('invalid_request', '"options.fresh" must be a boolean');
  return { probe_mailbox: probe, check_disposable: disposable, fresh };
}

/**
 * Identifies a set of MX hosts. Equal-preference hosts come in random order (load spreading), so
 * the key sorts them: domains on the same servers share a group whatever order their answers
 * came in.
 */
function mailHostsKey(hosts: MailHosts['hosts']): string {
  return hosts
    .map((host) => `${host.priority} ${host.host.toLowerCase()}`)
    .sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10) || a.localeCompare(b))
    .join(',');
}
