import { readFileSync } from 'node:fs';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { BatchRunner, Store as BatchStore } from '@svc/batch-runner';
import { createMemoryStore } from '@svc/batch-runner';
import type { Verifier } from '@svc/email-verifier';
import type { Enricher } from '@svc/enricher';
import type { GeoResolver } from '@svc/geo-resolver';
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import { checkServerOptions } from './config.js';
import type { GeoDatabaseInfo, ServerContext } from './context.js';
import { syncPlans } from './control-plane/accounts.js';
import type { ServerSecrets } from './control-plane/secrets.js';
import type { ControlPlaneStore } from './control-plane/store.js';
import type { ServerFeedback } from './feedback/serve-feedback.js';
import { httpServerFactory, onClientError, onConnect } from './http-server.js';
import type { RateLimiter } from './limiter/limiter.js';
import { createMemoryRateLimiter } from './limiter/memory.js';
import { bufferedLogDestination } from './log-destination.js';
import { resolveServerOptions, type ServerOptions } from './options.js';
import { authPlugin } from './plugins/auth.js';
import { clientAddressPlugin } from './plugins/client-address.js';
import { compressPlugin } from './plugins/compress.js';
import { corsPlugin } from './plugins/cors.js';
import { dashboardPlugin } from './plugins/dashboard.js';
import { deadlinePlugin } from './plugins/deadline.js';
import { errorsPlugin, sendError, toServiceError } from './plugins/errors.js';
import { jsonBodyLimits, jsonBodyPlugin } from './plugins/json-body.js';
import { limitsPlugin, takeUnauthenticated } from './plugins/limits.js';
import { metricsPlugin } from './plugins/metrics.js';
import { openapiPlugin } from './plugins/openapi.js';
import { protocolPlugin } from './plugins/protocol.js';
import { generateRequestId, requestIdPlugin } from './plugins/request-id.js';
import { requestLogPlugin } from './plugins/request-log.js';
import { usagePlugin } from './plugins/usage.js';
import { defaultProbingHealth, type ProbingHealth } from './probing-health.js';
import { accountRoutes } from './routes/account.js';
import { batchRoutes } from './routes/batch.js';
import { enrichRoutes } from './routes/enrich.js';
import { feedbackRoutes } from './routes/feedback.js';
import { geoRoutes } from './routes/geo.js';
import { healthRoutes } from './routes/health.js';
import { keyRoutes } from './routes/keys.js';
import { tokenRoutes } from './routes/tokens.js';
import { usageRoutes } from './routes/usage.js';
import { verifyRoutes } from './routes/verify.js';
import { serializerCompiler, validatorCompiler } from './schema-compilers.js';

/** What `createServer` needs besides the settings: the stores and the capability libraries. */
export interface ServerServices {
  controlPlane: ControlPlaneStore;
  /** `createServerSecrets(loadServerKey({ dataDir }).key)` */
  secrets: ServerSecrets;
  verifier: Verifier;
  geo: GeoResolver;
  /** `createEnricher(…)` from @svc/enricher, for /v2/enrich with live keys. @default none (those routes answer 500) */
  enricher?: Enricher;
  /**
   * Delivery feedback: the store of provider events and the history live verifications get
   * (`openServeFeedback`, or your own `{ store, history, … }`). @default none (/v2/feedback answers 404)
   */
  feedback?: ServerFeedback | null;
  /** @default an in-memory token-bucket limiter */
  limiter?: RateLimiter;
  /** @default an in-memory batch store and no runner (jobs are accepted but nothing runs them) */
  batch?: { store: BatchStore; runner: BatchRunner | null };
  /** @default Date.now */
  now?: () => number;
  geoDatabases?: () => GeoDatabaseInfo[];
  /** The owner's probing self-check in GET /v2/health. @default runDoctor with `smtp`/`dns`, at most every 6 h */
  probingHealth?: ProbingHealth;
  /**
   * Where the pino log lines go. @default stdout (fd 1) through a buffer
   * (`bufferedLogDestination`): a system call per few KiB of log instead of one per request
   */
  logStream?: { write(line: string): void };
}

/** `createServer`'s argument: the settings (as in the config file) and the services. */
export interface CreateServerOptions extends ServerServices {
  options?: ServerOptions;
  /** The built dashboard served at /dashboard; null serves none. @default DASHBOARD_DIR */
  dashboardDir?: string | null;
}

/** Header values never to log, wherever a serializer might put them. */
export const REDACTED_LOG_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers["x-api-key"]',
  'headers.authorization',
  // Named paths only: a wildcard (`*.secret`) made pino walk every logged object, about 5 µs a
  // line, the request log's line included. What else is logged is an error (`err`) or fields of ours.
  'err.secret',
  'err.api_key',
  'err.key_secret',
];

/** The context the plugins share as `app.svc`. */
export function createServerContext(input: CreateServerOptions): ServerContext {
  checkServerOptions(input.options ?? {});
  const options = resolveServerOptions(input.options);
  return {
    options,
    controlPlane: input.controlPlane,
    secrets: input.secrets,
    limiter: input.limiter ?? createMemoryRateLimiter(),
    verifier: input.verifier,
    geo: input.geo,
    enricher: input.enricher ?? null,
    feedback: input.feedback ?? null,
    batch: input.batch ?? { store: createMemoryStore(), runner: null },
    now: input.now ?? Date.now,
    probingHealth: input.probingHealth ?? defaultProbingHealth(options, input.now ?? Date.now),
    ...(input.geoDatabases ? { geoDatabases: input.geoDatabases } : {}),
  };
}

/**
 * The /v2 API as a Fastify instance (not listening yet: call `listen`). Logging is pino with
 * keys, tokens and secrets redacted, one line per request; bodies are JSON (each endpoint's limits
 * from ENDPOINTS, see plugins/json-body.ts) validated by the routes' TypeBox schemas. The plugins
 * are registered in this order, each exported for servers of your own: errors, json-body, request-id, client-address, protocol,
 * deadline, cors, compress, request-log, metrics, auth, limits, usage, openapi; then the routes.
 * Serves HTTPS when `options.tls` names a certificate and key. Writes the configured plans into
 * the control-plane store first.
 */
export async function createServer(input: CreateServerOptions): Promise<FastifyInstance> {
  const svc = createServerContext(input);
  const { options } = svc;
  // Accounts name their plan by id; the store holds the configured plans, so it knows them all.
  await syncPlans(svc.controlPlane, options.plans);
  const tls = options.tls
    ? { cert: readFileSync(options.tls.certFile), key: readFileSync(options.tls.keyFile) }
    : undefined;
  // At level silent nothing is written: no buffer, timer or exit listener (test servers by the hundred).
  const ownLog =
    input.logStream === undefined && options.logLevel !== 'silent' ? bufferedLogDestination() : undefined;
  const app = Fastify({
    // Fastify reads `https` to say so in its log lines; the server itself comes from serverFactory.
    ...(tls ? { https: tls } : {}),
    logger: {
      level: options.logLevel,
      redact: { paths: REDACTED_LOG_PATHS, censor: '[redacted]' },
      stream: input.logStream ?? ownLog?.stream,
    },
    genReqId: generateRequestId,
    requestIdHeader: false,
    // Fastify's two lines per request are replaced by the request-log plugin's one.
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
    // Unknown paths and routes without an endpoint; each endpoint's own limit comes from ENDPOINTS (json-body plugin).
    bodyLimit: jsonBodyLimits(undefined, options.limits.jsonBodyBytes).bytes,
    // In-flight requests finish on close; Fastify's own 503 body is not the spec's.
    return503OnClosing: false,
    // Errors before routing (a malformed URL) get the spec body too, and the client address's
    // X-RateLimit-* headers as every response without an account (no hook runs for them).
    frameworkErrors: (error, request, reply) => {
      const failure = toServiceError(error, reply.request);
      const decided = takeUnauthenticated(svc, request, reply);
      if ('then' in decided)
        decided.then(
          () => sendError(reply, failure),
          () => sendError(reply, failure),
        );
      else sendError(reply, failure);
    },
    // A request Node cannot parse as HTTP never reaches Fastify: answer it in the spec's shape.
    clientErrorHandler: onClientError,
    // Node's server with deliberate timeouts and Host left to the protocol plugin (http-server.ts).
    serverFactory: httpServerFactory(options.limits, tls),
  }).withTypeProvider<TypeBoxTypeProvider>();
  if (ownLog)
    app.addHook('onClose', (_instance, done) => {
      ownLog.close();
      done();
    });
  app.server.on('connect', onConnect);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorate('svc', svc);

  await app.register(errorsPlugin);
  await app.register(jsonBodyPlugin);
  await app.register(requestIdPlugin);
  await app.register(clientAddressPlugin);
  await app.register(protocolPlugin);
  await app.register(deadlinePlugin);
  await app.register(corsPlugin);
  await app.register(compressPlugin);
  // The logger is pino with its defaults writing to this stream: the line can be written directly.
  await app.register(requestLogPlugin, { stream: input.logStream ?? ownLog?.stream });
  await app.register(metricsPlugin);
  await app.register(authPlugin);
  await app.register(limitsPlugin);
  await app.register(usagePlugin);
  await app.register(openapiPlugin);

  // Routes: one line per capability.
  await app.register(healthRoutes);
  await app.register(verifyRoutes);
  await app.register(geoRoutes);
  await app.register(enrichRoutes);
  await app.register(tokenRoutes);
  await app.register(keyRoutes);
  await app.register(accountRoutes);
  await app.register(usageRoutes);
  await app.register(feedbackRoutes);
  await app.register(batchRoutes);
  if (input.dashboardDir !== null)
    await app.register(dashboardPlugin, { root: input.dashboardDir ?? undefined });
  return app as unknown as FastifyInstance;
}
