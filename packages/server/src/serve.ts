import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  type BatchRunner,
  type Store as BatchStore,
  type ChunkDispatcher,
  createBatchRunner,
  createBullMqDispatcher,
  createEnrichCompanyProcessor,
  createEnrichContactProcessor,
  createGeoIpProcessor,
  createPostgresStore,
  createSqliteStore,
  createVerifyEmailProcessor,
  type RetentionOptions,
} from '@svc/batch-runner';
import type { SqliteDriver } from '@svc/core';
import {
  createDns2Resolver,
  createNodeDnsResolver,
  createVerifier,
  type VerifierOptions,
} from '@svc/email-verifier';
import {
  createGeoResolver,
  type GeoBackend,
  type GeoResolver,
  loadAsnNetworkTypes,
  openDefaultBackends,
  openMmdbBackend,
  updatedListsPath,
  withGeofeed,
} from '@svc/geo-resolver';
import type { FastifyInstance } from 'fastify';
import { batchMissCredits, sweepBatchMissCredits } from './batch-credits.js';
import { maskSecrets } from './config.js';
import type { GeoDatabaseInfo } from './context.js';
import { createFirstAccount, webhookSigningSecrets } from './control-plane/accounts.js';
import { createServerSecrets } from './control-plane/secrets.js';
import { loadServerKey } from './control-plane/server-key.js';
import type { ControlPlaneStore } from './control-plane/store.js';
import { createPostgresControlPlaneStore } from './control-plane/stores/postgres.js';
import { CONTROL_PLANE_DB_FILE, createSqliteControlPlaneStore } from './control-plane/stores/sqlite.js';
import { createWriteBehindUsageStore } from './control-plane/write-behind-usage.js';
import { serverDataDir } from './data-dir.js';
import { historyForBatch, openServeFeedback, sweepFeedbackRetention } from './feedback/serve-feedback.js';
import { openServerGeofeed } from './geo-geofeed.js';
import { scheduleNetworkListRefresh } from './geo-lists-refresh.js';
import type { RateLimiter } from './limiter/limiter.js';
import { createRedisRateLimiter } from './limiter/redis.js';
import { type ResolvedServerOptions, resolveServerOptions, type ServerOptions } from './options.js';
import { batchResultsPath } from './routes/batch.js';
import { accountWebhookSecrets, webhookAddressGuard } from './routes/batch-webhooks.js';
import { describedByResolver } from './routes/health.js';
import { CONTROL_PLANE_OK, dnsResolverCheck, type HealthCheck } from './routes/health-checks.js';
import { createSandboxVerifier } from './sandbox.js';
import { createSandboxEnricher } from './sandbox-enricher.js';
import { openServeEnricher } from './serve-enricher.js';
import {
  geoReloadTriggers,
  onStopSignals,
  prepareDataDir,
  readTlsPair,
  startHealthServer,
} from './serve-lifecycle.js';
import { createServer } from './server.js';
import { openVerifyCache } from './verify-cache.js';

/** The batch jobs database's name inside the data dir. */
export const BATCH_DB_FILE = 'batch.db';

/** Options of `serve`. */
export interface ServeOptions {
  /** Checked settings (`loadServerConfig`); relative paths are taken from `cwd`. */
  options: ServerOptions;
  /** @default process.env */
  env?: Record<string, string | undefined>;
  /** @default process.cwd() */
  cwd?: string;
  /** The start line (the address) and the pino log go here. @default process.stdout */
  stdout?: { write(text: string): unknown };
  /**
   * Warnings, and the owner's secrets on first start (once; never on stdout, the log stream a log
   * shipper collects). @default process.stderr
   */
  stderr?: { write(text: string): unknown };
  /**
   * Opens the geo data (at start and when a stamp file changes). The CLI passes one that puts
   * `svc geo update`'s installed files before the bundled data.
   * @default the `geo.databases` files, else the bundled open data (cached in `<dataDir>/geo`)
   */
  openGeo?: (extra: { geofeed?: GeoBackend }) => Promise<GeoResolver | OpenedGeo>;
  /** Addresses the geofeed URLs may be fetched from (tests). @default public addresses only */
  geofeedAllowedAddress?: (ip: string) => boolean;
  /** Files whose change means new geo data (the files `svc geo update` installs). @default geo.databases */
  geoStampFiles?: string[];
  /**
   * better-sqlite3 as the caller resolves it, for every SQLite file serve opens (control plane,
   * batch jobs, result cache, enrichment). The CLI passes its own: in a global install of every
   * tarball, @svc/server is a top-level package that cannot see the copy installed under the CLI.
   * @default the better-sqlite3 @svc/server resolves, loaded on first use
   */
  sqliteDriver?: SqliteDriver;
  /** Stop on SIGTERM/SIGINT (and exit), reload geo on SIGHUP. @default true */
  handleSignals?: boolean;
  /**
   * How long a stop waits for batch chunks in progress before aborting them and handing their
   * leases back (the next start claims them at once instead of after the lease expires).
   * @default 10000
   */
  batchStopTimeoutMs?: number;
  /**
   * With `redisUrl`: longest an idle worker waits on the queue before it also looks at the store
   * (work whose message was lost waits at most this long). @default 5000 (the dispatcher's)
   */
  batchFallbackPollMs?: number;
  /**
   * The clock (ms since the epoch) of the API: key and token expiry, grace periods, usage months,
   * cursor expiry. For tests, which move it instead of waiting. The batch runner keeps its own.
   * @default Date.now
   */
  now?: () => number;
  /** What a stop signal ends with. @default process.exit */
  exit?: (code: number) => void;
}

/** Geo data with the description of each database, for GET /v2/health. */
export interface OpenedGeo {
  resolver: GeoResolver;
  /** @default what `resolver.databases()` says */
  databases?: GeoDatabaseInfo[];
}

/** A started server. */
export interface RunningServer {
  /** The API; null in a worker process (`role: 'worker'`), which serves its health port only. */
  app: FastifyInstance | null;
  /** `http://127.0.0.1:8080`, or `https://…` with TLS; a worker's health listener. */
  url: string;
  options: ResolvedServerOptions;
  /** The owner account created by this start, or null when the store already had accounts. */
  createdOwner: { accountId: string } | null;
  /** Reloads (or reopens) the geo data now. */
  reloadGeo(): Promise<void>;
  /**
   * Graceful stop: no new connections, requests in flight finish, the batch runner stops
   * claiming and hands its leases back, the webhook dispatcher stops, the stores close.
   */
  close(): Promise<void>;
}

/**
 * Runs the API as `svc serve` does: the data dir (0700) with its SQLite control plane and batch
 * store (or both in PostgreSQL with `databaseUrl`), the server secret key, the verifier, the geo
 * data, the batch runner and its webhook dispatcher in this process; on first start an owner
 * account whose keys are printed once. `role` splits it (docs/deployment.md): `api` serves HTTP
 * and submits batch jobs but never claims their chunks, `worker` runs the batch runner and
 * webhook delivery behind a health port, `all` does both. With `redisUrl`, chunks reach the
 * workers through BullMQ and rate-limit buckets live in Redis.
 */
export async function serve(input: ServeOptions): Promise<RunningServer> {
  const env = input.env ?? process.env;
  const stdout = input.stdout ?? process.stdout;
  const stderr = input.stderr ?? process.stderr;
  const sqliteDriver = input.sqliteDriver ? { driver: input.sqliteDriver } : {};
  const cwd = input.cwd ?? process.cwd();
  const chosen = serverDataDir({ dataDir: input.options.dataDir, env, cwd });
  if (chosen.notice) stderr.write(`svc serve: notice: ${chosen.notice}\n`);
  const dataDir = chosen.path;
  const settings: ServerOptions = { ...input.options, dataDir };
  const options = resolveServerOptions(settings);
  const { role, databaseUrl, redisUrl } = options;
  // loadServerConfig refuses these too; serve() is also called with options built in code.
  if (role !== 'all' && databaseUrl === null)
    throw new Error(
      `role ${role} needs databaseUrl: with SQLite one process serves the API and runs the batch work (role all)`,
    );
  if (redisUrl !== null && databaseUrl === null) throw new Error('redisUrl needs databaseUrl');
  for (const warning of prepareDataDir(dataDir)) stderr.write(`svc serve: warning: ${warning}\n`);
  // Read once here too: a missing or wrong file is named before anything opens.
  if (options.tls) await readTlsPair(options.tls);

  const closers: (() => Promise<void> | void)[] = [];
  const closeAll = async () => {
    for (const close of closers.reverse()) await close();
  };
  try {
    const serverKey = loadServerKey({ dataDir, env });
    const secrets = createServerSecrets(serverKey.key);
    const stored: ControlPlaneStore = databaseUrl
      ? await createPostgresControlPlaneStore({ connectionString: databaseUrl })
      : await createSqliteControlPlaneStore({ path: join(dataDir, CONTROL_PLANE_DB_FILE), ...sqliteDriver });
    // One usage transaction per flush, not per billable call: the largest cost of a cheap call
    // (a geo lookup) was its own write. Closing flushes what is buffered.
    const flushMs = options.limits.usageFlushMs;
    const controlPlane: ControlPlaneStore =
      flushMs > 0
        ? createWriteBehindUsageStore(stored, {
            flushIntervalMs: flushMs,
            onFlushError: (error) =>
              stderr.write(
                `svc serve: usage write failed, kept for the next one: ${String(maskSecrets(error.message))}\n`,
              ),
          })
        : stored;
    closers.push(() => controlPlane.close());
    const now = input.now ?? Date.now;
    const deps = { controlPlane, secrets, now };
    if (databaseUrl) await checkSharedServerKey(deps, serverKey.source);

    const resultCache = await openVerifyCache(options, input.sqliteDriver);
    if (resultCache) closers.push(() => resultCache.close());
    const verifier = createVerifier({ ...verifierOptions(options, stderr), resultCache });
    // The resolver's canary check runs at start, so health and the first verification know it.
    verifier.resolverHealth();
    // The operators' geofeeds (geo.geofeeds): opened once, read again on every reload below.
    let geofeedReport = (message: string) => stderr.write(`svc serve: ${message}\n`);
    const geofeed =
      options.geo.geofeeds.length > 0
        ? await openServerGeofeed({
            feeds: options.geo.geofeeds,
            report: (message) => geofeedReport(message),
            ...(input.geofeedAllowedAddress ? { isAllowedAddress: input.geofeedAllowedAddress } : {}),
          })
        : undefined;
    const openGeoData = input.openGeo ?? ((extra) => openConfiguredGeo(options, extra.geofeed));
    const openGeo = () => openGeoData(geofeed ? { geofeed } : {});
    // Lookups go through this holder, so a reopened resolver replaces the old one everywhere.
    const opened = asOpenedGeo(await openGeo());
    let geo = opened.resolver;
    // Descriptions the opener gave, else (undefined) health asks the resolver.
    let geoDatabases = opened.databases;
    closers.push(() => geo.close());
    const geoProxy: GeoResolver = {
      lookup: (ip) => geo.lookup(ip),
      reload: () => geo.reload(),
      databases: () => geo.databases(),
      close: () => geo.close(),
    };

    const enrich = await openServeEnricher({ dataDir, env, databaseUrl, ...sqliteDriver });
    closers.push(() => enrich.close());
    // Delivery feedback: providers' events per account, applied to live verifications.
    const feedback = options.feedback.enabled
      ? await openServeFeedback({
          dataDir,
          databaseUrl,
          shareAcrossAccounts: options.feedback.shareAcrossAccounts,
          retentionDays: options.feedback.retentionDays,
          ...sqliteDriver,
        })
      : null;
    if (feedback) {
      const stopSweep = sweepFeedbackRetention(feedback, now, (error) =>
        stderr.write(`svc serve: warning: feedback retention sweep: ${error.message}\n`),
      );
      closers.push(() => feedback.close());
      closers.push(async () => stopSweep());
    }
    const batchStore: BatchStore = databaseUrl
      ? await createPostgresStore({ connectionString: databaseUrl })
      : await createSqliteStore({ path: join(dataDir, BATCH_DB_FILE), ...sqliteDriver });
    closers.push(() => batchStore.close());
    const warn = throttledWarnings(stderr);
    let dispatcher: ChunkDispatcher | undefined;
    if (redisUrl) {
      const bullmq = createBullMqDispatcher({
        store: batchStore,
        connection: redisUrl,
        prefix: options.redisPrefix,
        onError: (error) => warn(`batch queue (Redis): ${error.message}`),
        ...(input.batchFallbackPollMs === undefined ? {} : { fallbackPollMs: input.batchFallbackPollMs }),
      });
      dispatcher = bullmq;
      // Closed after the runner (closers run last first), which settles its leases through it.
      closers.push(() => bullmq.close());
    }
    let limiter: RateLimiter | undefined;
    if (redisUrl && role !== 'worker') {
      const shared = await createRedisRateLimiter({
        url: redisUrl,
        prefix: `${options.redisPrefix}:rl:`,
        whenUnavailable: options.limits.whenRedisUnavailable,
        onUnavailable: (error) => warn(`rate limiter (Redis): ${error.message}`),
      });
      limiter = shared;
      closers.push(() => shared.close());
    } else if (databaseUrl && role === 'api')
      stderr.write(
        'svc serve: warning: without redisUrl every API process keeps its own rate-limit buckets, so an account gets its rate once per API process\n',
      );
    let baseUrl = '';
    let publicBase = '';
    const runner: BatchRunner = createBatchRunner({
      store: batchStore,
      processors: [
        createVerifyEmailProcessor(verifier, {
          sandbox: createSandboxVerifier(),
          shareCacheAcrossAccounts: options.verifyCache.shareAcrossAccounts,
          ...(feedback ? { refine: historyForBatch(feedback) } : {}),
        }),
        createGeoIpProcessor(geoProxy),
        createEnrichContactProcessor(enrich.enricher, { sandbox: createSandboxEnricher() }),
        createEnrichCompanyProcessor(enrich.enricher, { sandbox: createSandboxEnricher() }),
      ],
      // Absolute when the server listens on one address; bound to every interface (0.0.0.0, ::)
      // it cannot know the name clients use, so the path alone.
      resultsUrl: (id) => `${publicBase}${batchResultsPath(id)}`,
      // Company misses billed at submit are credited when the job ends, unless the plan bills them.
      onJobFinished: batchMissCredits({
        controlPlane,
        store: batchStore,
        onError: (error, job) => warn(`usage credit of ${job.id}: ${error.message}`),
      }),
      ...(dispatcher ? { dispatcher } : {}),
      // Finished jobs and their results are deleted after their retention (0 days: kept).
      retention: batchRetention(options, (error) => warn(`batch retention sweep: ${error.message}`)),
      webhooks: {
        // Each account's events are signed with its own active secrets (two during a rotation).
        secretsFor: accountWebhookSecrets(deps),
        isAllowedAddress: webhookAddressGuard(options),
      },
    });
    // Closed before the store: it stops claiming and releases what it holds.
    closers.push(() => runner.close({ timeoutMs: input.batchStopTimeoutMs ?? 10_000 }));
    // Where batch work runs: the credits of company misses a killed worker left undone.
    const startRunner = () => {
      runner.start();
      const sweeping = sweepBatchMissCredits({ controlPlane, store: batchStore, now }).then(
        () => {},
        (error: Error) => warn(`usage credits sweep: ${error.message}`),
      );
      closers.push(() => sweeping);
    };

    // The API logs through Fastify's logger once it exists; a worker has only stderr.
    let reloadFailed = (error: Error) =>
      stderr.write(`svc serve: geo data reload failed; the previous data stays: ${error.message}\n`);
    let listsReport = (message: string, _failed: boolean) => stderr.write(`svc serve: ${message}\n`);
    const reopen = async () => {
      // A feed that became unreadable or empty keeps its old rows; the data reopens regardless.
      await geofeed?.reload().catch((error: Error) => reloadFailed(error));
      const next = asOpenedGeo(await openGeo());
      const previous = geo;
      geo = next.resolver;
      geoDatabases = next.databases;
      previous.close();
    };
    const triggers = geoReloadTriggers({
      // A stamp file changed, a signal came or the schedule fired: open the data anew (a newly
      // installed file is picked up too) and swap it in once it is ready.
      reload: reopen,
      intervalSeconds: options.geo.reloadIntervalSeconds,
      // The bundled data's network lists are replaced by `svc geo update --lists` or the refresh below.
      stampFiles: [
        ...(input.geoStampFiles ??
          (options.geo.databases.length > 0
            ? options.geo.databases
            : [updatedListsPath(join(options.dataDir, 'geo'))])),
        // A geofeed file's change reloads too (URLs are read again on the schedule or SIGHUP).
        ...options.geo.geofeeds.filter((feed) => !/^[a-z][a-z0-9+.-]*:\/\//i.test(feed)),
      ],
      signals: input.handleSignals !== false,
      onError: (error) => reloadFailed(error),
    });
    closers.push(() => triggers.stop());
    closers.push(
      scheduleNetworkListRefresh({
        cacheDir: join(options.dataDir, 'geo'),
        intervalSeconds: options.geo.listsUpdateIntervalSeconds,
        report: (message, failed) => listsReport(message, failed),
      }),
    );

    if (role === 'worker') {
      const health = await startHealthServer({
        host: options.host,
        port: options.port,
        tls: options.tls ? await readTlsPair(options.tls) : null,
        // Ready when both stores answer.
        ready: async () => {
          await controlPlane.listPlans();
          await batchStore.listJobs({ limit: 1 });
        },
        // A worker verifies the records of verify_email jobs: its resolver is checked as the API's
        // (no key on this port, so no resolver address in the message).
        checks: () =>
          [CONTROL_PLANE_OK, dnsResolverCheck(verifier.resolverHealth(), false)].filter(
            (check): check is HealthCheck => check !== null,
          ),
        now,
      });
      closers.push(() => health.close());
      startRunner();
      let closing: Promise<void> | undefined;
      const close = () => {
        closing ??= closeAll();
        return closing;
      };
      if (input.handleSignals !== false)
        closers.unshift(
          onStopSignals(
            async () => {
              await close();
            },
            input.exit ?? ((code) => process.exit(code)),
          ),
        );
      stdout.write(
        `svc serve: worker running batch jobs and webhook delivery; health on ${health.url}/v2/health (state in ${stateIn(options)}; data in ${dataDir})\n`,
      );
      return {
        app: null,
        url: health.url,
        options,
        createdOwner: null,
        reloadGeo: () => triggers.trigger(),
        close,
      };
    }

    const app = await createServer({
      options: settings,
      controlPlane,
      secrets,
      verifier,
      geo: geoProxy,
      enricher: enrich.enricher,
      feedback,
      batch: { store: batchStore, runner },
      ...(limiter ? { limiter } : {}),
      geoDatabases: () => geoDatabases ?? geo.databases().map(describedByResolver),
      // A stream of the caller's gets the log; stdout itself gets createServer's buffered writer
      // on fd 1 (process.stdout makes a system call per line).
      ...(stdout !== process.stdout ? { logStream: stdout } : {}),
      now,
    });
    reloadFailed = (error) =>
      app.log.error({ err: error }, 'geo data reload failed; the previous data stays');
    listsReport = (message, failed) => (failed ? app.log.warn(message) : app.log.info(message));
    geofeedReport = (message) => app.log.warn(message);
    closers.push(async () => {
      // Node's close() ends the connections idle at that moment only; a keep-alive connection
      // whose request finishes during the stop would hold it open for keepAliveTimeout (72 s).
      const sweep = setInterval(() => app.server.closeIdleConnections(), 100);
      try {
        await app.close();
      } finally {
        clearInterval(sweep);
      }
    });

    const createdOwner = await ensureOwner(deps, options, stderr);
    await app.listen({ host: options.host, port: options.port });
    const address = app.server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    baseUrl = `${options.tls ? 'https' : 'http'}://${host}:${address.port}`;
    publicBase = address.address === '0.0.0.0' || address.address === '::' ? '' : baseUrl;
    // An api process submits jobs (its dispatcher enqueues them) but leaves the chunks to workers.
    if (role === 'all') startRunner();

    let closing: Promise<void> | undefined;
    const close = () => {
      closing ??= closeAll();
      return closing;
    };
    if (input.handleSignals !== false) {
      const removeHandlers = onStopSignals(
        async (signal) => {
          app.log.info({ signal }, 'stopping: finishing requests in flight');
          await close();
        },
        input.exit ?? ((code) => process.exit(code)),
      );
      closers.unshift(removeHandlers);
    }
    // Before the start line: a reader waiting for that line knows where to look for the secrets.
    if (createdOwner) {
      stdout.write(
        `svc serve: first start: created the owner account ${createdOwner.accountId}; its keys and webhook signing secret were printed once on stderr\n`,
      );
    }
    stdout.write(
      role === 'all' && databaseUrl === null
        ? `svc serve: listening on ${baseUrl} (data in ${dataDir})\n`
        : `svc serve: listening on ${baseUrl} (role ${role}; state in ${stateIn(options)}; data in ${dataDir})\n`,
    );
    return { app, url: baseUrl, options, createdOwner, reloadGeo: () => triggers.trigger(), close };
  } catch (error) {
    await closeAll().catch(() => {});
    throw error;
  }
}

function verifierOptions(
  options: ResolvedServerOptions,
  stderr: { write(text: string): unknown },
): VerifierOptions {
  const smtp: NonNullable<VerifierOptions['smtp']> = {
    port: options.smtp.port,
    allowPrivateAddresses: options.smtp.allowPrivateMx,
  };
  if (options.smtp.heloName) smtp.heloName = options.smtp.heloName;
  if (options.smtp.mailFrom) smtp.mailFrom = options.smtp.mailFrom;
  if (options.smtp.proxies.length > 0) {
    smtp.proxies = options.smtp.proxies;
    smtp.proxySelection = options.smtp.proxySelection;
    smtp.proxyCooldown = options.smtp.proxyCooldown;
    // The operator's log of the pool: proxies by label or host:port, never their credentials.
    smtp.onProxyEvent = (event) =>
      stderr.write(
        event.state === 'out'
          ? `svc serve: SOCKS5 proxy ${event.proxy} is out until ${event.until} (${event.failures} failure(s) in a row): ${event.error}\n`
          : `svc serve: SOCKS5 proxy ${event.proxy} is back\n`,
      );
  }
  const timeoutMs = options.dnsTimeoutMs;
  const dns = options.dns
    ? createDns2Resolver({ server: options.dns, timeoutMs })
    : createNodeDnsResolver({ timeoutMs });
  return { smtp, dns, resolverHealth: { canaries: options.dnsCanaries } };
}

function asOpenedGeo(value: GeoResolver | OpenedGeo): OpenedGeo {
  return 'resolver' in value ? value : { resolver: value };
}

/** The configured `.mmdb` files in priority order, else the bundled open data (each file described by the resolver). */
/** The runner's retention settings from `batch.retentionDays` and `batch.sweepIntervalSeconds`. */
export function batchRetention(
  options: ResolvedServerOptions,
  onError: (error: Error) => void,
): RetentionOptions {
  const days = (count: number) => (count === 0 ? null : count * 86_400_000);
  return {
    liveMs: days(options.batch.retentionDays.live),
    sandboxMs: days(options.batch.retentionDays.test),
    intervalMs: options.batch.sweepIntervalSeconds * 1000,
    onError,
  };
}

async function openConfiguredGeo(options: ResolvedServerOptions, geofeed?: GeoBackend): Promise<OpenedGeo> {
  if (options.geo.databases.length > 0) {
    const backends = await Promise.all(options.geo.databases.map((source) => openMmdbBackend({ source })));
    return {
      resolver: await createGeoResolver({ backends: geofeed ? withGeofeed(geofeed, backends) : backends }),
    };
  }
  const dataBackends = await openDefaultBackends({ cacheDir: join(options.dataDir, 'geo') });
  return {
    resolver: await createGeoResolver({
      backends: geofeed ? withGeofeed(geofeed, dataBackends) : dataBackends,
      asnNetworkTypes: await loadAsnNetworkTypes(),
    }),
  };
}

/**
 * On first start (no account yet): the owner account, its keys printed this once, on stderr: the
 * request log is JSON on stdout, and a log shipper collecting it must not collect a live key.
 */
async function ensureOwner(
  deps: Parameters<typeof createFirstAccount>[0],
  options: ResolvedServerOptions,
  stderr: { write(text: string): unknown },
): Promise<{ accountId: string } | null> {
  // A store with accounts is past its first start: ownerPlan is not even looked up then.
  if ((await deps.controlPlane.listAccounts()).length > 0) return null;
  // Another process on the same database may be starting too: one of them makes the owner.
  const created = await createFirstAccount(deps, { name: 'owner', planId: options.ownerPlan });
  if (!created) return null;
  const { account, testKey, liveKey, webhookSecret } = created;
  stderr.write(
    [
      `svc serve: first start: created the account ${account.id} ("owner", plan ${account.plan_id}).`,
      '  These secrets are shown only now; keep them somewhere safe:',
      `  test key (sandbox, never billed): ${testKey.secret}`,
      `  live key:                         ${liveKey.secret}`,
      `  webhook signing secret:           ${webhookSecret.secret}`,
      '',
    ].join('\n'),
  );
  return { accountId: account.id };
}

/** Where the shared state lives, for the start line: the database URL without its password. */
function stateIn(options: ResolvedServerOptions): string {
  const where = options.databaseUrl ? String(maskSecrets(options.databaseUrl)) : 'SQLite';
  return options.redisUrl ? `${where} + ${String(maskSecrets(options.redisUrl))}` : where;
}

/**
 * Every process of a deployment seals and opens webhook secrets and signs cursors with one server
 * key. A process with another key would start and then fail every webhook it signs, so an
 * account's sealed secret is opened here first and a mismatch stops the start.
 */
async function checkSharedServerKey(
  deps: Parameters<typeof webhookSigningSecrets>[0],
  source: 'env' | 'file' | 'created',
): Promise<void> {
  const [account] = await deps.controlPlane.listAccounts();
  if (!account) return;
  try {
    await webhookSigningSecrets(deps, account.id);
  } catch {
    const where = source === 'env' ? 'SVC_SECRET_KEY' : "the data dir's secret.key";
    throw new Error(
      `this process's server secret key (from ${where}) is not the one the database's webhook secrets were sealed with: every process of a deployment needs the same key; set SVC_SECRET_KEY to the same value everywhere (openssl rand -hex 32), or copy one secret.key into every data dir (docs/deployment.md)`,
    );
  }
}

/** A warning line to stderr, the same text at most once a minute (an unreachable Redis repeats itself). */
function throttledWarnings(stderr: { write(text: string): unknown }): (message: string) => void {
  const last = new Map<string, number>();
  return (message) => {
    const now = Date.now();
    if ((last.get(message) ?? 0) > now - 60_000) return;
    if (last.size > 100) last.clear();
    last.set(message, now);
    stderr.write(`svc serve: warning: ${message}\n`);
  };
}
