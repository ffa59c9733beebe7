import {
  DEFAULT_DNS_CANARIES,
  DEFAULT_RESULT_CACHE_TTLS,
  type ProxySelection,
  type ResultCacheTtls,
  type SmtpProxyOptions,
} from '@svc/email-verifier';
import type { Plan } from './control-plane/store.js';

/**
 * The server's settings. One shape for the config file (JSON, see README), the `SVC_*`
 * environment overrides (`config.ts`) and `createServer(options)`; defaults are resolved once,
 * in `resolveServerOptions`.
 */
export interface ServerOptions {
  /** @default '127.0.0.1' */
  host?: string;
  /** @default 8080 */
  port?: number;
  /** Where the SQLite files, the secret key and the geo cache live. @default './svc-data' */
  dataDir?: string;
  /**
   * Addresses or CIDR ranges of reverse proxies whose `X-Forwarded-For` is believed (for
   * `/geo/me` and the per-client auth-failure limit). @default [] (the peer address is the client)
   */
  trustedProxies?: string[];
  /** Plans by id; merged over the defaults of DESIGN §8 (free, pro, enterprise, self_hosted). */
  plans?: Record<string, Partial<Omit<Plan, 'id'>>>;
  /** The plan of the owner account created on first start. @default 'self_hosted' */
  ownerPlan?: string;
  limits?: {
    /**
     * A ceiling on every endpoint's JSON body limit, bytes. Each endpoint's own limit comes from
     * what it accepts (plugins/json-body.ts): 16 KiB, plus 257 bytes per entry for bulk
     * verification (2.6 MB) and batch jobs (12.9 MB). @default 16_777_216
     */
    jsonBodyBytes?: number;
    /** Largest uploaded list (`text/csv`, `text/plain` to POST /batch), bytes. @default 8_388_608 */
    uploadBodyBytes?: number;
    /**
     * A request's headers must arrive within this, ms; a client trickling them (a slowloris) gets
     * 400 `invalid_request` and the connection is closed. @default 10_000
     */
    headersTimeoutMs?: number;
    /**
     * Deadline of a request that does not probe SMTP, ms; its body must arrive within it too
     * (else 400 `invalid_request`, "the request body was not received in time"). @default 15_000
     */
    requestTimeoutMs?: number;
    /** Deadline of a request that probes SMTP, ms. @default 60_000 */
    probeRequestTimeoutMs?: number;
    /** Failed authentications allowed per client address per minute before 429. @default 20 */
    authFailuresPerMinute?: number;
    /**
     * Requests without an account (key-less routes such as health and the OpenAPI document, the
     * dashboard's files, unknown paths, wrong methods, malformed URLs) per client address per
     * second, in a bucket of `unauthenticatedBurst`; past it 429. @default 10
     */
    unauthenticatedPerSecond?: number;
    /** The burst of that bucket (`X-RateLimit-Limit` on those responses). @default 100 */
    unauthenticatedBurst?: number;
    /**
     * With `redisUrl`: what a request whose rate-limit bucket cannot be read (Redis down or slow)
     * gets. `refuse`: 500 `internal_error`, retryable (limits always hold); `allow`: it passes
     * unlimited (the API stays up; monthly quotas still hold). @default 'refuse'
     */
    whenRedisUnavailable?: 'refuse' | 'allow';
    /**
     * `svc serve` writes billable calls to the control-plane store in one transaction every this
     * many ms instead of one per call (`createWriteBehindUsageStore`); 0 writes each call at once.
     * A crash loses at most this interval's usage (served, not billed); several API processes
     * see each other's usage this much later. @default 250
     */
    usageFlushMs?: number;
  };
  /** Batch jobs (README "Batch jobs and webhooks"). */
  batch?: {
    /** Sandbox (test-key) batch jobs an account may create per UTC day; past it 429. @default 10 */
    sandboxJobsPerDay?: number;
    /**
     * Records an account's sandbox jobs may have waiting to be processed, a new job's included;
     * past it 429 until one finishes. @default 50_000 (one job of the largest size)
     */
    sandboxRecordsInFlight?: number;
    /**
     * Days a finished job (completed, failed or cancelled) and its results are kept, then
     * deleted by the sweeper: `live` for live keys' jobs, `test` for test keys' (sandbox) jobs;
     * 0 keeps them forever. @default live 30, test 1
     */
    retentionDays?: { live?: number; test?: number };
    /** How often processes that run batch work sweep expired jobs, seconds. @default 600 */
    sweepIntervalSeconds?: number;
  };
  /** The identity of SMTP probes (HELO name, MAIL FROM), and where DNS is asked. */
  smtp?: {
    heloName?: string;
    mailFrom?: string;
    port?: number;
    /** Probe MX hosts on private addresses (tests, intranets). @default false */
    allowPrivateMx?: boolean;
    /**
     * SOCKS5 proxies the probes go through, one chosen per session (`{ url, label?, providers?,
     * perHostConcurrency? }` each; @svc/email-verifier README "Proxy pools"). @default [] (direct)
     */
    proxies?: SmtpProxyOptions[];
    /** `per-provider` (pinned proxies for their providers, the others in turn) or `round-robin`. @default 'per-provider' */
    proxySelection?: ProxySelection;
    /** How long a proxy that failed stays out: doubling from `initialMs` up to `maxMs`. @default 30_000 and 600_000 */
    proxyCooldown?: { initialMs?: number; maxMs?: number };
  };
  /** `host:port` of a DNS server to use instead of the system resolver. */
  dns?: string;
  /**
   * How long one DNS question waits for its answer, per try (two tries), for `dns` or the system
   * resolver. A verification whose DNS does not answer in time is 503 `upstream_timeout`.
   * @default 5000
   */
  dnsTimeoutMs?: number;
  /**
   * Names the resolver must resolve before the verifier believes a domain does not exist
   * (@svc/email-verifier README "Resolver health"); an intranet names hosts its resolver serves.
   * @default ['iana.org', 'ietf.org', 'icann.org']
   */
  dnsCanaries?: string[];
  webhooks?: {
    /** CIDR ranges webhook URLs may point into although private (intranets, tests). @default [] */
    allowPrivateTargets?: string[];
  };
  tls?: {
    /** PEM files; when both are given the server speaks HTTPS only. */
    certFile?: string;
    keyFile?: string;
  };
  cors?: {
    /** Origins allowed to call the API from a browser (with tokens). @default [] (none) */
    origins?: string[];
  };
  metrics?: {
    /** Serve Prometheus metrics at this path (no key; bind to a private interface). @default null */
    path?: string | null;
  };
  geo?: {
    /** `.mmdb` files to use instead of the bundled open data. */
    databases?: string[];
    /** Reload the geo data every so many seconds (0 = only when `svc geo update` signals). @default 0 */
    reloadIntervalSeconds?: number;
  };
  /** pino log level. @default 'info' */
  logLevel?: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** The owner-only probing self-check in GET /v2/health (README "The probing self-check"). */
  probing?: {
    /** Seconds a self-check report is served before an owner request starts a new run; 0 turns it off. @default 21600 (6 h) */
    intervalSeconds?: number;
    /** The mail server port 25 is tried on. @default 'gmail-smtp-in.l.google.com' */
    testHost?: string;
    /** The address receivers see, when known. @default learned from the test host's EHLO reply */
    publicAddress?: string;
    /** DNS blocklist zones to look the address up in. @default Spamhaus ZEN, Barracuda, SpamCop, UCEPROTECT L1 */
    blocklists?: string[];
  };
  /** The result cache of probed verifications (README "Result cache"). */
  verifyCache?: {
    /**
     * `sqlite`: `<dataDir>/verify-cache.db`, kept across restarts and shared by the API and the
     * batch runner of this data dir; `postgres`: a table in `databaseUrl`'s database (schema
     * `svc_verify`), shared by every process and machine on it; `memory`: this process only;
     * `off`: every probe request probes.
     * @default 'postgres' with databaseUrl, else 'sqlite'
     */
    store?: VerifyCacheStore;
    /**
     * Serve one account's cached results to another (fewer probes, but an account then gets
     * answers another account's request produced). @default false (a namespace per account)
     */
    shareAcrossAccounts?: boolean;
    /** Seconds a result is served, by state; 0 keeps none. @default deliverable 7 d, undeliverable 30 d, risky 1 d, unknown 5 min */
    ttlSeconds?: Partial<ResultCacheTtls>;
  };
  /**
   * `postgres://user:password@host:5432/database`: the batch store and the control plane live in
   * PostgreSQL instead of the data dir's SQLite files, so several processes (and machines) share
   * them (docs/deployment.md). @default null (SQLite in dataDir)
   */
  databaseUrl?: string;
  /**
   * `redis://[:password@]host:6379[/db]` (`rediss://` for TLS): batch chunks are handed out through
   * a BullMQ queue (idle workers wake at once) and rate-limit buckets are shared by every API
   * process. Needs `databaseUrl`. @default null (no Redis)
   */
  redisUrl?: string;
  /** Prefix of every Redis key svc writes (queue, buckets): deployments sharing a Redis need different ones. @default 'svc' */
  redisPrefix?: string;
  /**
   * What this process runs: `api` (the HTTP API; submits batch jobs, never claims their chunks),
   * `worker` (the batch runner and webhook delivery; no API, a health port only) or `all`. Only
   * `all` runs on SQLite. @default 'all'
   */
  role?: ServeRole;
}

/** What one `svc serve` process runs (docs/deployment.md). */
export type ServeRole = 'api' | 'worker' | 'all';

/** Where the verification result cache lives (`verifyCache.store`). */
export type VerifyCacheStore = 'sqlite' | 'postgres' | 'memory' | 'off';

/** Every option with its default applied. */
export interface ResolvedServerOptions {
  host: string;
  port: number;
  dataDir: string;
  trustedProxies: string[];
  plans: Record<string, Plan>;
  ownerPlan: string;
  limits: Required<NonNullable<ServerOptions['limits']>>;
  batch: {
    sandboxJobsPerDay: number;
    sandboxRecordsInFlight: number;
    retentionDays: { live: number; test: number };
    sweepIntervalSeconds: number;
  };
  smtp: {
    heloName: string | null;
    mailFrom: string | null;
    port: number;
    allowPrivateMx: boolean;
    proxies: SmtpProxyOptions[];
    proxySelection: ProxySelection;
    proxyCooldown: { initialMs: number; maxMs: number };
  };
  dns: string | null;
  dnsTimeoutMs: number;
  dnsCanaries: string[];
  webhooks: { allowPrivateTargets: string[] };
  tls: { certFile: string; keyFile: string } | null;
  cors: { origins: string[] };
  metrics: { path: string | null };
  geo: { databases: string[]; reloadIntervalSeconds: number };
  logLevel: NonNullable<ServerOptions['logLevel']>;
  probing: {
    intervalSeconds: number;
    testHost: string | null;
    publicAddress: string | null;
    blocklists: string[] | null;
  };
  verifyCache: {
    store: VerifyCacheStore;
    shareAcrossAccounts: boolean;
    ttlSeconds: ResultCacheTtls;
  };
  databaseUrl: string | null;
  redisUrl: string | null;
  redisPrefix: string;
  role: ServeRole;
}

/** The plans of DESIGN §8; spec §8 gives the free and pro rates. */
export const DEFAULT_PLANS: Record<string, Plan> = {
  free: {
    id: 'free',
    name: 'Free',
    rate_per_second: 1,
    burst: 10,
    monthly_allowance: 1_000,
    endpoints: null,
    bill_company_misses: false,
  },
  pro: {
    id: 'pro',
    name: 'Pro',
    rate_per_second: 25,
    burst: 100,
    monthly_allowance: 100_000,
    endpoints: null,
    bill_company_misses: false,
  },
  enterprise: {
    id: 'enterprise',
    name: 'Enterprise',
    rate_per_second: 200,
    burst: 200,
    monthly_allowance: 1_000_000,
    endpoints: null,
    bill_company_misses: false,
  },
  self_hosted: {
    id: 'self_hosted',
    name: 'Self-hosted',
    rate_per_second: 1_000,
    burst: 1_000,
    monthly_allowance: null,
    endpoints: null,
    bill_company_misses: false,
  },
};

/** Applies the defaults (the one place they are decided). */
export function resolveServerOptions(options: ServerOptions = {}): ResolvedServerOptions {
  const plans: Record<string, Plan> = { ...DEFAULT_PLANS };
  for (const [id, patch] of Object.entries(options.plans ?? {})) {
    const base = plans[id] ?? { ...DEFAULT_PLANS.free, id, name: id };
    plans[id] = { ...base, ...patch, id } as Plan;
  }
  const tls =
    options.tls?.certFile && options.tls.keyFile
      ? { certFile: options.tls.certFile, keyFile: options.tls.keyFile }
      : null;
  return {
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 8080,
    dataDir: options.dataDir ?? './svc-data',
    trustedProxies: options.trustedProxies ?? [],
    plans,
    ownerPlan: options.ownerPlan ?? 'self_hosted',
    limits: {
      jsonBodyBytes: options.limits?.jsonBodyBytes ?? 16_777_216,
      uploadBodyBytes: options.limits?.uploadBodyBytes ?? 8_388_608,
      headersTimeoutMs: options.limits?.headersTimeoutMs ?? 10_000,
      requestTimeoutMs: options.limits?.requestTimeoutMs ?? 15_000,
      probeRequestTimeoutMs: options.limits?.probeRequestTimeoutMs ?? 60_000,
      authFailuresPerMinute: options.limits?.authFailuresPerMinute ?? 20,
      unauthenticatedPerSecond: options.limits?.unauthenticatedPerSecond ?? 10,
      unauthenticatedBurst: options.limits?.unauthenticatedBurst ?? 100,
      whenRedisUnavailable: options.limits?.whenRedisUnavailable ?? 'refuse',
      usageFlushMs: options.limits?.usageFlushMs ?? 250,
    },
    batch: {
      sandboxJobsPerDay: options.batch?.sandboxJobsPerDay ?? 10,
      sandboxRecordsInFlight: options.batch?.sandboxRecordsInFlight ?? 50_000,
      retentionDays: {
        live: options.batch?.retentionDays?.live ?? 30,
        test: options.batch?.retentionDays?.test ?? 1,
      },
      sweepIntervalSeconds: options.batch?.sweepIntervalSeconds ?? 600,
    },
    smtp: {
      heloName: options.smtp?.heloName ?? null,
      mailFrom: options.smtp?.mailFrom ?? null,
      port: options.smtp?.port ?? 25,
      allowPrivateMx: options.smtp?.allowPrivateMx ?? false,
      proxies: options.smtp?.proxies ?? [],
      proxySelection: options.smtp?.proxySelection ?? 'per-provider',
      proxyCooldown: {
        initialMs: options.smtp?.proxyCooldown?.initialMs ?? 30_000,
        maxMs: Math.max(
          options.smtp?.proxyCooldown?.maxMs ?? 600_000,
          options.smtp?.proxyCooldown?.initialMs ?? 0,
        ),
      },
    },
    dns: options.dns ?? null,
    dnsTimeoutMs: options.dnsTimeoutMs ?? 5000,
    dnsCanaries: options.dnsCanaries ?? [...DEFAULT_DNS_CANARIES],
    webhooks: { allowPrivateTargets: options.webhooks?.allowPrivateTargets ?? [] },
    tls,
    cors: { origins: options.cors?.origins ?? [] },
    metrics: { path: options.metrics?.path ?? null },
    geo: {
      databases: options.geo?.databases ?? [],
      reloadIntervalSeconds: options.geo?.reloadIntervalSeconds ?? 0,
    },
    logLevel: options.logLevel ?? 'info',
    probing: {
      intervalSeconds: options.probing?.intervalSeconds ?? 21_600,
      testHost: options.probing?.testHost ?? null,
      publicAddress: options.probing?.publicAddress ?? null,
      blocklists: options.probing?.blocklists ?? null,
    },
    verifyCache: {
      store: options.verifyCache?.store ?? (options.databaseUrl ? 'postgres' : 'sqlite'),
      shareAcrossAccounts: options.verifyCache?.shareAcrossAccounts ?? false,
      ttlSeconds: { ...DEFAULT_RESULT_CACHE_TTLS, ...options.verifyCache?.ttlSeconds },
    },
    databaseUrl: options.databaseUrl ?? null,
    redisUrl: options.redisUrl ?? null,
    redisPrefix: options.redisPrefix ?? 'svc',
    role: options.role ?? 'all',
  };
}
