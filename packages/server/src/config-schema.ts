import {
  DEFAULT_DNS_CANARIES,
  DEFAULT_RESULT_CACHE_TTLS,
  type ProxySelection,
  type SmtpProxyOptions,
} from '@svc/email-verifier';
import { PAID_PROVIDERS } from '@svc/enricher/providers';
import { type Static, Type } from 'typebox';
import type { ValueCheck } from './config-checks.js';

/**
 * `svc serve`'s settings, declared once. From this schema come the options type
 * (`ServerOptions`), the config file's checks and the `SVC_*` variables (config.ts), the checks
 * of options passed to `createServer` in code, `--print-config`'s sources and the README's
 * settings table (`scripts/settings-table.ts`, kept current by config-readme.test.ts). A new
 * setting is added here, its default in `resolveServerOptions` (options.ts; a test holds the two
 * equal), and nowhere else.
 *
 * Besides JSON Schema's words a leaf carries:
 * - `description`: the README's text (Markdown);
 * - `default`: the value `resolveServerOptions` gives, or `x-default`: how the README says it
 *   when it is not a plain value ("the verifier's");
 * - `x-check`: the name of a value check that a JSON type cannot say (config-checks.ts);
 * - `x-kind`: `path` / `paths` (relative paths resolved against the file's folder) or `proxies`;
 * - `x-flag`: the `svc serve` flag that sets it too.
 */

interface Doc {
  /** Markdown for the README's settings table. */
  description: string;
  /** The default as the README says it, when it is not `default`'s plain value. */
  defaultText?: string;
  /** The `svc serve` flag that sets it too. */
  flag?: `--${string}`;
}

function annotate(doc: Doc, value?: unknown): Record<string, unknown> {
  return {
    description: doc.description,
    ...(value === undefined ? {} : { default: value }),
    ...(doc.defaultText === undefined ? {} : { 'x-default': doc.defaultText }),
    ...(doc.flag === undefined ? {} : { 'x-flag': doc.flag }),
  };
}

/** An integer from `minimum` to `maximum` (null: no upper bound). */
function integer(minimum: number, maximum: number | null, value: number | undefined, doc: Doc) {
  return Type.Optional(
    Type.Integer({ minimum, ...(maximum === null ? {} : { maximum }), ...annotate(doc, value) }),
  );
}

function boolean(value: boolean, doc: Doc) {
  return Type.Optional(Type.Boolean(annotate(doc, value)));
}

function oneOf<const Values extends readonly string[]>(values: Values, value: Values[number], doc: Doc) {
  return Type.Optional(
    Type.Unsafe<Values[number]>({ type: 'string', enum: [...values], ...annotate(doc, value) }),
  );
}

function text(check: ValueCheck, value: string | undefined, doc: Doc) {
  return Type.Optional(Type.String({ 'x-check': check, ...annotate(doc, value) }));
}

function list(check: ValueCheck, value: readonly string[] | undefined, doc: Doc) {
  return Type.Optional(Type.Array(Type.String({ 'x-check': check }), annotate(doc, value && [...value])));
}

function path(value: string | undefined, doc: Doc) {
  return Type.Optional(Type.String({ minLength: 1, 'x-kind': 'path', ...annotate(doc, value) }));
}

const MAX_PORT = 65_535;

/** A plan's fields (`plans.<id>.<field>`, `SVC_PLAN_<ID>_<FIELD>`); checked in config.ts. */
export const PLAN_PATCH_SCHEMA = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1 })),
  rate_per_second: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
  burst: Type.Optional(Type.Integer({ minimum: 1 })),
  monthly_allowance: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
  endpoints: Type.Optional(Type.Union([Type.Array(Type.String()), Type.Null()])),
  bill_company_misses: Type.Optional(Type.Boolean()),
});

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const SERVE_ROLES = ['api', 'worker', 'all'] as const;
export const VERIFY_CACHE_STORES = ['sqlite', 'postgres', 'memory', 'off'] as const;
const PROXY_SELECTIONS = ['per-provider', 'round-robin'] as const satisfies readonly ProxySelection[];

export const SERVER_SETTINGS_SCHEMA = Type.Object({
  host: text('host', '127.0.0.1', {
    description: 'address to listen on (`0.0.0.0` / `::` for all)',
    flag: '--host',
  }),
  port: integer(0, MAX_PORT, 8080, {
    description: 'port; 0 picks a free one (printed at start)',
    flag: '--port',
  }),
  dataDir: path(undefined, {
    description:
      'the secret key, SQLite files and `geo/` data; created 0700. The same for every `svc` command (`svc accounts`, `svc batch`, `svc enrich`, `svc feedback`, `svc geo`), so what one writes the others read',
    defaultText:
      "`$XDG_DATA_HOME/svc`, else `~/.local/share/svc`; `./svc-data` (the default of earlier versions) while it holds the server's key or accounts (`secret.key`, `control-plane.db`) and the default does not, with a notice on stderr",
  }),
  trustedProxies: list('addressRange', [], {
    description: 'IPs or CIDR ranges whose `X-Forwarded-For` is believed',
  }),
  plans: Type.Optional(
    Type.Record(Type.String(), PLAN_PATCH_SCHEMA, {
      description:
        "`name`, `rate_per_second`, `burst`, `monthly_allowance` (integer, or `null` / `unlimited`), `endpoints` (plan-gated endpoint ids, or `null` / `all`), `bill_company_misses` (`true`: a company enrichment that finds nothing is billed, on the route and in batch jobs; default `false` on every plan, [enrichment](../../docs/api.md#enrichment)); a new id starts from the free plan's values",
      'x-default': 'DESIGN §8 plans',
    }),
  ),
  ownerPlan: text('planId', 'self_hosted', {
    description: 'plan of the owner account created on first start; must exist',
  }),
  limits: Type.Optional(
    Type.Object({
      jsonBodyBytes: integer(1, null, 16_777_216, {
        description:
          "a ceiling on every endpoint's JSON body limit; each endpoint's own comes from what it accepts ([Request bodies](#request-bodies))",
      }),
      uploadBodyBytes: integer(1, null, 8_388_608, {
        description: 'largest uploaded list (`text/csv`, `text/plain`)',
      }),
      headersTimeoutMs: integer(1, null, 10_000, {
        description:
          "a request's headers must arrive within this; a client trickling them (slowloris) gets 400 and the connection is closed",
      }),
      requestTimeoutMs: integer(1, null, 15_000, {
        description:
          'deadline of a request that does not probe SMTP; its body must arrive within it too (else 400, closed)',
      }),
      probeRequestTimeoutMs: integer(1, null, 60_000, {
        description: 'deadline of a probing request; not below the one above',
      }),
      authFailuresPerMinute: integer(1, null, 20, {
        description: 'failed authentications per client address per minute before 429',
      }),
      drainedBodiesPerMinute: integer(1, null, 10, {
        description:
          'refused request bodies per account and client address per minute whose rest is read and dropped so the client surely gets its answer; past it the answer waits 1 s and the connection closes without reading the rest (a client still writing may see a reset) ([Request bodies](#request-bodies))',
      }),
      unauthenticatedPerSecond: integer(1, null, 10, {
        description:
          'requests without an account (key-less routes, dashboard files, unknown paths, wrong methods, malformed URLs) per client address per second before 429 ([Limits](#limits))',
      }),
      unauthenticatedBurst: integer(1, null, 100, {
        description: 'the burst of that per-address bucket (its `X-RateLimit-Limit`)',
      }),
      whenRedisUnavailable: oneOf(['refuse', 'allow'], 'refuse', {
        description:
          'with `redisUrl`, a request whose rate-limit bucket Redis cannot give in time: `refuse` (500 `internal_error`, retryable) or `allow` (passes unlimited; monthly quotas still hold)',
      }),
      usageFlushMs: integer(0, 60_000, 250, {
        description:
          "billable calls are written to the control-plane store in one transaction this often instead of one per call (0: each call at once); quota stays exact in one process, a crash loses at most this interval's usage (calls served, not billed), several API processes see each other's usage this much later",
      }),
    }),
  ),
  batch: Type.Optional(
    Type.Object({
      sandboxJobsPerDay: integer(1, null, 10, {
        description:
          'sandbox (test-key) batch jobs one account may create per UTC day; past it 429 `rate_limited`, `Retry-After` until midnight UTC ([sandbox limits](../../docs/api.md#batch-jobs))',
      }),
      sandboxRecordsInFlight: integer(1, null, 50_000, {
        description:
          "records one account's sandbox jobs may have waiting to be processed, a new job's included; past it 429 `rate_limited`, `Retry-After: 30`; a single job larger than this is 400 `invalid_request`",
      }),
      retentionDays: Type.Optional(
        Type.Object({
          live: integer(0, 36_500, 30, {
            description:
              'days a finished batch job (completed, failed, cancelled) of a live key is kept with its results and webhook events, then deleted (its id then answers 404); `0` keeps them forever',
          }),
          test: integer(0, 36_500, 1, {
            description: 'the same for the jobs of test keys (sandbox jobs)',
          }),
        }),
      ),
      sweepIntervalSeconds: integer(1, 86_400, 600, {
        description:
          'how often processes that run batch work (roles `all`, `worker`) delete the jobs past their retention',
      }),
    }),
  ),
  smtp: Type.Optional(
    Type.Object({
      heloName: text('hostname', undefined, {
        description: 'HELO name of SMTP probes',
        defaultText: "the verifier's",
      }),
      mailFrom: text('mailFrom', undefined, {
        description: 'MAIL FROM of SMTP probes',
        defaultText: "the verifier's",
      }),
      port: integer(1, MAX_PORT, 25, { description: 'port probed on MX hosts' }),
      allowPrivateMx: boolean(false, {
        description: 'probe MX hosts on private addresses (intranets, tests)',
      }),
      proxies: Type.Optional(
        Type.Unsafe<SmtpProxyOptions[]>({
          type: 'array',
          'x-kind': 'proxies',
          ...annotate(
            {
              description:
                'SOCKS5 proxies the probes go through, one chosen per session: `[{ "url": "socks5://user:pass@host:1080", "label"?, "providers"?: ["google"], "perHostConcurrency"?, "sessionsPerMinute"? }]`; the variable takes a comma list of URLs or the JSON array. Passwords are masked in `--print-config` and never in results or logs ([proxy pools](../email-verifier/README.md#proxy-pools))',
              defaultText: '`[]` (direct)',
            },
            [],
          ),
        }),
      ),
      proxySelection: oneOf(PROXY_SELECTIONS, 'per-provider', {
        description:
          '`per-provider`: proxies pinned to the receiving provider carry its probes, the others everything else in turn; `round-robin`: all in turn',
      }),
      proxyCooldown: Type.Optional(
        Type.Object({
          initialMs: integer(0, null, 30_000, {
            description:
              'a proxy that fails at the SOCKS layer is out this long, doubling with each failure in a row…',
          }),
          maxMs: integer(0, null, 600_000, {
            description: '…up to this (equal to `initialMs`: a fixed cool-down)',
          }),
        }),
      ),
    }),
  ),
  dns: text('hostPort', undefined, {
    description: '`host:port` of the DNS server to ask (`[v6]:port`)',
    defaultText: 'system resolver',
  }),
  dnsTimeoutMs: integer(1, null, 5000, {
    description:
      'how long one DNS question waits, per try (two tries), with `dns` or the system resolver; a verification whose DNS does not answer in time is 503 `upstream_timeout`',
  }),
  dnsCanaries: list('hostname', DEFAULT_DNS_CANARIES, {
    description:
      'names the resolver must resolve (more than half of them) before any domain is called non-existent: checked at start, after a burst of failed lookups, at most every 2 min; while it fails, a verify is 503 `upstream_timeout` and bulk/batch records are `unknown` / `dns_unavailable`, not billed, and `GET /v2/health` is `degraded` ([resolver health](../email-verifier/README.md#resolver-health)). An intranet or air-gapped setup names hosts its own resolver serves',
  }),
  webhooks: Type.Optional(
    Type.Object({
      allowPrivateTargets: list('addressRange', [], {
        description: 'CIDR ranges webhook URLs may point into although private',
      }),
    }),
  ),
  tls: Type.Optional(
    Type.Object({
      certFile: path(undefined, {
        description: 'PEM certificate file; both or neither',
        defaultText: 'none',
      }),
      keyFile: path(undefined, { description: "the certificate's PEM key file", defaultText: 'none' }),
    }),
  ),
  cors: Type.Optional(
    Type.Object({
      origins: list('origin', [], {
        description: 'browser origins allowed (`https://host[:port]`, exact)',
      }),
    }),
  ),
  metrics: Type.Optional(
    Type.Object({
      path: Type.Optional(
        Type.Union([Type.String({ 'x-check': 'metricsPath' }), Type.Null()], {
          ...annotate(
            {
              description: 'Prometheus metrics path, not under `/v2` (`off` or empty in the variable: off)',
              defaultText: 'off',
            },
            null,
          ),
        }),
      ),
    }),
  ),
  geo: Type.Optional(
    Type.Object({
      databases: Type.Optional(
        Type.Array(
          Type.String({ minLength: 1 }),
          annotate({ description: '`.mmdb` files to use instead', defaultText: 'bundled open data' }, []),
        ),
      ),
      reloadIntervalSeconds: integer(0, null, 0, {
        description: 'reload the geo data this often (0: only on signal or update)',
      }),
      listsUpdateIntervalSeconds: integer(0, null, 0, {
        description:
          'fetch fresh network lists (Tor exits, cloud ranges, iCloud Private Relay) this often through the SSRF guard, each checked before it is swapped in; 0: never (the shipped snapshot or `svc geo update --lists` serves)',
      }),
      geofeeds: list('geofeed', [], {
        description:
          "operators' geofeeds (RFC 8805 CSV), file paths or http(s) URLs fetched through the SSRF guard: they outrank the geo data for the prefixes they cover (`sources` say `geofeed`); read again on every geo reload (a file's change, SIGHUP, `geo.reloadIntervalSeconds`), a bad new copy keeping the old data; bad rows are logged with their line numbers",
      }),
    }),
  ),
  logLevel: oneOf(LOG_LEVELS, 'info', {
    description: '`fatal`, `error`, `warn`, `info`, `debug`, `trace`, `silent`',
  }),
  probing: Type.Optional(
    Type.Object({
      intervalSeconds: integer(0, null, 21_600, {
        description:
          "how long the owner's [probing self-check](../../docs/api.md#health-and-the-probing-self-check) report is served before an owner request starts a new run; `0` turns the self-check off (health never shows `probing` and never connects anywhere)",
      }),
      testHost: text('host', undefined, {
        description:
          'the mail server the self-check tries port `smtp.port` on (it echoes the client address in EHLO)',
        defaultText: '`gmail-smtp-in.l.google.com`',
      }),
      publicAddress: text('ip', undefined, {
        description: 'the address receivers see, for the reverse DNS and blocklist checks',
        defaultText: 'learned from the test host',
      }),
      blocklists: list('hostname', undefined, {
        description:
          'DNS blocklist zones the self-check looks the address up in (comma list in the variable)',
        defaultText: 'Spamhaus ZEN, Barracuda, SpamCop, UCEPROTECT L1',
      }),
    }),
  ),
  verifyCache: Type.Optional(
    Type.Object({
      store: oneOf(VERIFY_CACHE_STORES, 'sqlite', {
        description:
          "where probed verification results are cached ([result cache](../../docs/api.md#result-cache)): `sqlite` (`<dataDir>/verify-cache.db`), `postgres` (schema `svc_verify` in `databaseUrl`'s database), `memory` (this process) or `off`",
        defaultText: '`postgres` with `databaseUrl`, else `sqlite`',
      }),
      shareAcrossAccounts: boolean(false, {
        description: "serve one account's cached results to the others (otherwise each account has its own)",
      }),
      ttlSeconds: Type.Optional(
        Type.Object({
          deliverable: integer(0, null, DEFAULT_RESULT_CACHE_TTLS.deliverable, {
            description: 'seconds a cached `deliverable` result is served; `0` caches none',
          }),
          undeliverable: integer(0, null, DEFAULT_RESULT_CACHE_TTLS.undeliverable, {
            description: 'the same for `undeliverable` results',
          }),
          risky: integer(0, null, DEFAULT_RESULT_CACHE_TTLS.risky, {
            description: 'the same for `risky` results',
          }),
          unknown: integer(0, null, DEFAULT_RESULT_CACHE_TTLS.unknown, {
            description: 'the same for `unknown` results',
          }),
        }),
      ),
    }),
  ),
  feedback: Type.Optional(
    Type.Object({
      enabled: boolean(true, {
        description:
          "record email providers' delivery, bounce and complaint webhooks (`/v2/feedback`, [delivery feedback](../../docs/api.md#delivery-feedback)) and apply each account's history to its live verifications; the events are kept in `<dataDir>/feedback.db`, or in `databaseUrl`'s database",
      }),
      shareAcrossAccounts: boolean(false, {
        description:
          "let every account's verifications use every account's delivery events (otherwise each account sees its own)",
      }),
      retentionDays: integer(1, 36_500, 730, {
        description: 'days a delivery event is kept; older ones are deleted by a daily sweep',
      }),
    }),
  ),
  databaseUrl: text('databaseUrl', undefined, {
    description:
      '`postgres://user:password@host:5432/database`: the batch store, the control plane and the enrichment cache and suppression list in PostgreSQL, shared by several processes ([deployment guide](../../docs/deployment.md))',
    defaultText: 'none: SQLite in `dataDir`',
  }),
  redisUrl: text('redisUrl', undefined, {
    description:
      '`redis://[:password@]host:6379[/db]` (`rediss://` for TLS): batch chunks handed to workers through BullMQ, rate-limit buckets shared by the API processes; needs `databaseUrl`',
    defaultText: 'none',
  }),
  redisPrefix: text('redisPrefix', 'svc', {
    description:
      'prefix of every Redis key (queue, buckets); deployments sharing one Redis need different ones',
  }),
  role: oneOf(SERVE_ROLES, 'all', {
    description:
      '`api` (the HTTP API, never runs batch chunks), `worker` (batch runner and webhook delivery, a health port only) or `all`; `api` and `worker` need `databaseUrl`',
    flag: '--role',
  }),
});

/**
 * The server's settings: the config file's shape (JSON, README "Configuration"), what the
 * `SVC_*` variables set, and `createServer({ options })`. Every field is described in
 * `SERVER_SETTINGS_SCHEMA`; defaults are applied by `resolveServerOptions`.
 */
export type ServerOptions = Static<typeof SERVER_SETTINGS_SCHEMA>;

/** What one `svc serve` process runs (docs/deployment.md). */
export type ServeRole = (typeof SERVE_ROLES)[number];

/** Where the verification result cache lives (`verifyCache.store`). */
export type VerifyCacheStore = (typeof VERIFY_CACHE_STORES)[number];

/**
 * `SVC_` variables that are not settings of the schema but are read by `svc serve` (or by other
 * parts of svc): documented beside the settings and never reported as unknown. The paid
 * providers' keys come from `@svc/enricher`'s registry.
 */
export const OTHER_SVC_VARIABLES: readonly { name: string; description: string }[] = [
  { name: 'SVC_CONFIG', description: 'the config file, when `--config` is not given' },
  {
    name: 'SVC_SECRET_KEY',
    description:
      'the server secret key, 64 hex characters or base64 of 32 bytes; without it the key is kept in `<dataDir>/secret.key`, created 0600 on first start',
  },
  ...PAID_PROVIDERS.map((provider) => ({
    name: provider.envVar,
    description: `API key of ${provider.name}: \`svc serve\`'s enrichment then asks it too ([what svc serve wires](../../docs/server.md#what-svc-serve-wires))`,
  })),
  {
    name: 'SVC_WEBHOOK_SECRET',
    description:
      "the webhook signing secret(s) of `svc batch`'s `--webhook-url` and `svc batch deliver`; not read by the server",
  },
  {
    name: 'SVC_REQUIRE_EXTERNAL',
    description:
      'read by the test suite (tests needing something outside npm fail instead of skipping), not by the server',
  },
];
