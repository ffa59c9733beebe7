import { hostname } from 'node:os';
import { isPublicIp } from '@svc/ip-address';
import { createNodeDnsResolver } from './dns/backends/node-dns.js';
import { withDnsCache } from './dns/cached-resolver.js';
import type { DnsResolver } from './dns/resolver.js';
import {
  createResolverHealth,
  type ResolverHealth,
  type ResolverHealthOptions,
} from './dns/resolver-health.js';
import type { ListsOptions } from './lists/create-lists.js';
import { createMemoryResultCache } from './result-cache/memory.js';
import type { ResultCache } from './result-cache/result-cache.js';
import { directSocket, type SocketFactory } from './smtp/connection.js';
import type { ProxyCooldownOptions, SmtpProxyOptions } from './smtp/proxy-options.js';
import { resolveProxyPool } from './smtp/proxy-options.js';
import type { ProxyPool, ProxyPoolEvent, ProxySelection } from './smtp/proxy-pool.js';
import type { StartTlsPolicy } from './smtp/session.js';
import type { Socks5ProxyOptions } from './smtp/socks5.js';

/** SMTP probe settings. */
export interface SmtpProbeOptions {
  /** Name sent with EHLO/HELO; should resolve back to the prober's IP. @default os.hostname() */
  heloName?: string;
  /** Envelope sender; '' sends the null sender `<>`. @default '' */
  mailFrom?: string;
  /** Port every MX is dialled on. @default 25 */
  port?: number;
  /** Time to establish a TCP connection. @default 10000 */
  connectTimeoutMs?: number;
  /** Time to wait for each reply. @default 15000 */
  commandTimeoutMs?: number;
  /** Overall deadline of one verify() probe; the result is `unknown` + `smtp_timeout` after it. @default 30000 */
  timeoutMs?: number;
  /** Overall deadline of one verifyMany() call's probing. @default 600000 */
  bulkTimeoutMs?: number;
  /** Simultaneous connections to one MX address. @default 2 */
  perHostConcurrency?: number;
  /** Simultaneous SMTP connections overall. @default 50 */
  concurrency?: number;
  /** Recipients asked per session before reconnecting (servers may allow fewer; we learn that). @default 20 */
  maxRcptsPerSession?: number;
  /** Use STARTTLS when offered (`opportunistic`), insist (`require`) or never. @default 'opportunistic' */
  startTls?: StartTlsPolicy;
  /** Check MX certificates; many are self-signed and no mail is sent. @default false */
  tlsRejectUnauthorized?: boolean;
  /**
   * Connect through one SOCKS5 proxy (e.g. from a host with port 25 open): a pool of one, with
   * its cool-down. Not together with `proxies`. @default none
   */
  proxy?: Socks5ProxyOptions;
  /**
   * Connect through a pool of SOCKS5 proxies, one chosen per session (README "Proxy pools").
   * @default none (direct)
   */
  proxies?: readonly SmtpProxyOptions[];
  /**
   * `per-provider`: proxies pinned to the receiving provider (`providers`) carry its sessions, the
   * unpinned ones everything else, in turn; `round-robin`: every proxy in turn.
   * @default 'per-provider'
   */
  proxySelection?: ProxySelection;
  /** How long a proxy that failed at the SOCKS layer stays out. @default { initialMs: 30000, factor: 2, maxMs: 600000 } */
  proxyCooldown?: ProxyCooldownOptions;
  /** Told when a proxy leaves or rejoins the pool (no credentials in it), for the operator's log. @default none */
  onProxyEvent?: (event: ProxyPoolEvent) => void;
  /**
   * Contact MX hosts that resolve to private or reserved addresses. Off by default so a hostile
   * domain cannot point the prober at internal hosts; tests and intranets turn it on.
   * @default false
   */
  allowPrivateAddresses?: boolean;
  /** Replaces the socket factory (tests). @default direct TCP, or SOCKS5 when proxy is set */
  socketFactory?: SocketFactory;
  /**
   * How long a domain's catch-all answer is reused (per verifier, up to 10,000 domains), so a
   * list checked in several calls, such as a batch job's chunks, asks each domain once;
   * 0 asks every call. @default 3600000 (1 h)
   */
  catchAllCacheMs?: number;
}

/** Options of createVerifier. */
export interface VerifierOptions {
  /** DNS backend. @default node:dns with the system resolvers */
  dns?: DnsResolver;
  /** Cache DNS answers by their TTL; false turns caching off. @default {} (on, defaults) */
  dnsCache?: Parameters<typeof withDnsCache>[1] | false;
  /**
   * Checks that the resolver resolves canary names before any domain is called non-existent or
   * any mailbox dead (README "Resolver health"); false believes every answer.
   * @default {} (iana.org, ietf.org, icann.org; checked at first use, after 5 failed lookups in a row, at most every 2 min)
   */
  resolverHealth?: ResolverHealthOptions | false;
  /** SMTP probe settings. @default {} */
  smtp?: SmtpProbeOptions;
  /** Allow/deny and extra list entries. @default {} */
  lists?: ListsOptions;
  /** Accept UTF-8 local parts (RFC 6531). @default false */
  allowUtf8LocalPart?: boolean;
  /** Clock for checked_at. @default () => new Date() */
  clock?: () => Date;
  /** Decides which A/AAAA answers count as public (implicit MX, SMTP targets). @default isPublicIp */
  isPublicAddress?: (ip: string) => boolean;
  /** Random local part for the catch-all question. @default 16 random base36 characters */
  syntheticLocalPart?: () => string;
  /**
   * Where final results of probed addresses are kept, so the same address is not probed again
   * within its state's TTL (README "Result cache"); false turns caching off.
   * @default createMemoryResultCache() (50,000 addresses, DEFAULT_RESULT_CACHE_TTLS)
   */
  resultCache?: ResultCache | false;
}

type ProxyOptionName = 'proxy' | 'proxies' | 'proxySelection' | 'proxyCooldown' | 'onProxyEvent';

/** Every option with its default applied; resolved once in createVerifier. */
export interface ResolvedVerifierOptions {
  dns: DnsResolver;
  /** The resolver's health, shared by every verification of this verifier; null when off. */
  resolverHealth: ResolverHealth | null;
  smtp: Required<Omit<SmtpProbeOptions, ProxyOptionName | 'socketFactory'>> & {
    socketFactory: SocketFactory;
    /** The SOCKS5 proxies sessions go through, or null for direct connections. */
    proxyPool: ProxyPool | null;
  };
  lists: ListsOptions;
  allowUtf8LocalPart: boolean;
  clock: () => Date;
  isPublicAddress: (ip: string) => boolean;
  syntheticLocalPart: () => string;
  resultCache: ResultCache | null;
}

const positiveInteger = (name: string, value: number) => {
  if (!Number.isInteger(value) || value <= 0)
    throw new TypeError(`smtp.${name} must be a positive integer, got ${value}`);
  return value;
};

const nonNegativeInteger = (name: string, value: number) => {
  if (!Number.isInteger(value) || value < 0)
    throw new TypeError(`smtp.${name} must be a non-negative integer, got ${value}`);
  return value;
};

/** Applies defaults and validates, so a bad option fails at construction with its name. */
export function resolveVerifierOptions(options: VerifierOptions = {}): ResolvedVerifierOptions {
  const smtp = options.smtp ?? {};
  const port = smtp.port ?? 25;
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new TypeError(`smtp.port must be 1..65535, got ${port}`);
  const startTls = smtp.startTls ?? 'opportunistic';
  if (!['opportunistic', 'require', 'never'].includes(startTls)) {
    throw new TypeError(
      `smtp.startTls must be opportunistic, require or never, got ${JSON.stringify(startTls)}`,
    );
  }
  const heloName = smtp.heloName ?? hostname();
  if (!/^[a-z0-9.-]+$/i.test(heloName) && !/^\[[0-9a-f:.]+\]$/i.test(heloName)) {
    throw new TypeError(
      `smtp.heloName must be a host name or an address literal, got ${JSON.stringify(heloName)}`,
    );
  }
  const mailFrom = smtp.mailFrom ?? '';
  if (
    /[\s<>]/.test(mailFrom) ||
    hasControlCharacter(mailFrom) ||
    (mailFrom !== '' && !mailFrom.includes('@'))
  ) {
    throw new TypeError(
      `smtp.mailFrom must be '' or an address without spaces or brackets, got ${JSON.stringify(mailFrom)}`,
    );
  }
  const perHostConcurrency = positiveInteger('perHostConcurrency', smtp.perHostConcurrency ?? 2);
  const clock = options.clock ?? (() => new Date());
  const baseDns = options.dns ?? createNodeDnsResolver();
  const dns = options.dnsCache === false ? baseDns : withDnsCache(baseDns, options.dnsCache ?? {});
  const resolverHealth =
    options.resolverHealth === false
      ? null
      : createResolverHealth({
          ...options.resolverHealth,
          // Canaries go past the cache: a recovered resolver is seen at the next check.
          resolver: baseDns,
          now: () => clock().getTime(),
          // Answers cached while it lied would outlive the lie.
          onRecovered: () => (dns as Partial<ReturnType<typeof withDnsCache>>).clear?.(),
        });
  return {
    dns,
    resolverHealth,
    smtp: {
      heloName,
      mailFrom,
      port,
      connectTimeoutMs: positiveInteger('connectTimeoutMs', smtp.connectTimeoutMs ?? 10_000),
      commandTimeoutMs: positiveInteger('commandTimeoutMs', smtp.commandTimeoutMs ?? 15_000),
      timeoutMs: positiveInteger('timeoutMs', smtp.timeoutMs ?? 30_000),
      bulkTimeoutMs: positiveInteger('bulkTimeoutMs', smtp.bulkTimeoutMs ?? 600_000),
      perHostConcurrency,
      concurrency: positiveInteger('concurrency', smtp.concurrency ?? 50),
      maxRcptsPerSession: positiveInteger('maxRcptsPerSession', smtp.maxRcptsPerSession ?? 20),
      catchAllCacheMs: nonNegativeInteger('catchAllCacheMs', smtp.catchAllCacheMs ?? 3_600_000),
      startTls,
      tlsRejectUnauthorized: smtp.tlsRejectUnauthorized ?? false,
      allowPrivateAddresses: smtp.allowPrivateAddresses ?? false,
      // With a pool, each session takes its proxy's socket factory instead.
      socketFactory: smtp.socketFactory ?? directSocket,
      proxyPool: resolveProxyPool(smtp, perHostConcurrency, () => clock().getTime()),
    },
    lists: options.lists ?? {},
    allowUtf8LocalPart: options.allowUtf8LocalPart ?? false,
    clock,
    isPublicAddress: options.isPublicAddress ?? isPublicIp,
    syntheticLocalPart:
      options.syntheticLocalPart ??
      (() => `${Math.random().toString(36).slice(2, 10)}${Math.random().toString(36).slice(2, 10)}`),
    resultCache: options.resultCache === false ? null : (options.resultCache ?? createMemoryResultCache()),
  };
}

function hasControlCharacter(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}
