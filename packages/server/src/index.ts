export {
  type BatchMissCreditsOptions,
  batchMissCredits,
  type SweepBatchMissCreditsOptions,
  sweepBatchMissCredits,
} from './batch-credits.js';
export {
  ConfigError,
  environmentVariables,
  type LoadConfigInput,
  type LoadedConfig,
  loadServerConfig,
  printableConfig,
} from './config.js';
export type { AuthContext, GeoDatabaseInfo, ServerContext } from './context.js';
export {
  type AccountDeps,
  authenticate,
  CREDENTIAL_CACHE_MS,
  type CreateAccountInput,
  type CreatedAccount,
  type CreateKeyInput,
  cachedCredential,
  createAccount,
  createFirstAccount,
  createKey,
  DEFAULT_TOKEN_TTL_SECONDS,
  type IssuedKey,
  type IssuedWebhookSecret,
  isKeyUsable,
  MANAGEMENT_SCOPES,
  MAX_GRACE_SECONDS,
  MAX_MANAGEMENT_TOKEN_TTL_SECONDS,
  MAX_TOKEN_TTL_SECONDS,
  MIN_TOKEN_TTL_SECONDS,
  type MintTokenInput,
  mintToken,
  PLAN_CACHE_MS,
  type RotateKeyInput,
  revokeKey,
  rotateKey,
  rotateWebhookSecret,
  setAccountDisabled,
  setAccountPlan,
  syncPlans,
  TOKEN_SCOPES,
  TOUCH_INTERVAL_MS,
  webhookSigningSecrets,
} from './control-plane/accounts.js';
export {
  type CopyControlPlaneOptions,
  type CopyControlPlaneReport,
  copyControlPlane,
} from './control-plane/copy.js';
export {
  CURSOR_TTL_MS,
  type CursorOptions,
  createServerSecrets,
  generateApiKey,
  generateTokenSecret,
  generateWebhookSecret,
  hashSecret,
  isWebhookSecret,
  last4,
  type PresentedSecret,
  parseSecret,
  SERVER_KEY_BYTES,
  type ServerSecrets,
  safeEqual,
  webhookSecretPrefix,
} from './control-plane/secrets.js';
export {
  type LoadedServerKey,
  type LoadServerKeyOptions,
  loadServerKey,
  SERVER_KEY_FILE,
} from './control-plane/server-key.js';
export type {
  Account,
  ApiKey,
  ControlPlaneStore,
  Environment,
  Plan,
  Token,
  UsageCredit,
  UsageIncrement,
  UsageLine,
  WebhookSecret,
} from './control-plane/store.js';
export { MAX_USAGE_INCREMENTS } from './control-plane/store.js';
export { createMemoryControlPlaneStore } from './control-plane/stores/memory.js';
export {
  createPostgresControlPlaneStore,
  type PostgresControlPlaneStoreOptions,
} from './control-plane/stores/postgres.js';
export {
  type MigratePostgresControlPlaneOptions,
  migratePostgresControlPlane,
  POSTGRES_MIGRATIONS as POSTGRES_CONTROL_PLANE_MIGRATIONS,
  type PostgresMigrationResult,
} from './control-plane/stores/postgres-migrate.js';
export {
  DEFAULT_CONTROL_PLANE_SCHEMA,
  type PostgresConnectionOptions,
} from './control-plane/stores/postgres-pool.js';
export {
  CONTROL_PLANE_DB_FILE,
  createSqliteControlPlaneStore,
  MIGRATIONS as CONTROL_PLANE_MIGRATIONS,
  type SqliteControlPlaneStoreOptions,
} from './control-plane/stores/sqlite.js';
export {
  createWriteBehindUsageStore,
  type WriteBehindUsageOptions,
  type WriteBehindUsageStore,
} from './control-plane/write-behind-usage.js';
export {
  type AuthRequirement,
  ENDPOINT_IDS,
  ENDPOINTS,
  type EndpointId,
  type EndpointSpec,
  isEndpointId,
  PLAN_GATED_ENDPOINTS,
} from './endpoints.js';
export type { BucketSpec, RateDecision, RateLimiter } from './limiter/limiter.js';
export { createMemoryRateLimiter, type MemoryRateLimiterOptions } from './limiter/memory.js';
export { createRedisRateLimiter, type RedisRateLimiterOptions } from './limiter/redis.js';
export { type BufferedLogDestination, bufferedLogDestination, LOG_FLUSH_MS } from './log-destination.js';
export {
  DEFAULT_PLANS,
  type ResolvedServerOptions,
  resolveServerOptions,
  type ServerOptions,
} from './options.js';
export { authPlugin, endpointOf, setRateLimitHeaders } from './plugins/auth.js';
export {
  type ClientAddress,
  clientAddressOf,
  clientAddressPlugin,
  trustedProxyMatcher,
} from './plugins/client-address.js';
export { compressPlugin } from './plugins/compress.js';
export { corsPlugin } from './plugins/cors.js';
export {
  DASHBOARD_CSP,
  DASHBOARD_DIR,
  type DashboardPluginOptions,
  dashboardPlugin,
} from './plugins/dashboard.js';
export { deadlinePlugin, setRequestDeadline } from './plugins/deadline.js';
export { errorsPlugin, sendError, toServiceError } from './plugins/errors.js';
export { type JsonBodyLimits, jsonBodyLimits, jsonBodyPlugin } from './plugins/json-body.js';
export { accountBucketKey, assertAllowance, limitsPlugin, takeUnauthenticated } from './plugins/limits.js';
export { metricsPlugin } from './plugins/metrics.js';
export { OPENAPI_PATH, openapiPlugin } from './plugins/openapi.js';
export { protocolPlugin } from './plugins/protocol.js';
export { generateRequestId, requestIdPlugin } from './plugins/request-id.js';
export { type RequestLogPluginOptions, requestLogPlugin } from './plugins/request-log.js';
export { usagePlugin } from './plugins/usage.js';
export {
  createProbingHealth,
  defaultProbingHealth,
  type ProbingHealth,
  type ProbingHealthOptions,
  type ProbingSnapshot,
  serverDoctorOptions,
} from './probing-health.js';
export { LazyRequestLogger, lazyRequestLoggerFactory } from './request-logger.js';
export { accountRoutes } from './routes/account.js';
export { type KeyView, keyView } from './routes/account-schemas.js';
export { batchResultsPath, batchRoutes } from './routes/batch.js';
export { parseUploadedRecords } from './routes/batch-upload.js';
export { accountWebhookSecrets, refusedWebhookTarget, webhookAddressGuard } from './routes/batch-webhooks.js';
export { enrichRoutes } from './routes/enrich.js';
export { geoRoutes } from './routes/geo.js';
export { healthRoutes } from './routes/health.js';
export { keyRoutes } from './routes/keys.js';
export { tokenRoutes } from './routes/tokens.js';
export { usageRoutes } from './routes/usage.js';
export { summarize, verifyRoutes } from './routes/verify.js';
export {
  createSandboxVerifier,
  SANDBOX_MAGIC,
  SANDBOX_MX_HOST,
  type SandboxVerifierOptions,
  sandboxMagicOf,
} from './sandbox.js';
export { createSandboxEnricher, SANDBOX_PERSON_NAME } from './sandbox-enricher.js';
export { serializerCompiler, validatorCompiler } from './schema-compilers.js';
export { BATCH_DB_FILE, type OpenedGeo, type RunningServer, type ServeOptions, serve } from './serve.js';
export {
  type CreateServerOptions,
  createServer,
  createServerContext,
  REDACTED_LOG_PATHS,
  type ServerServices,
} from './server.js';
export { API_VERSION } from './version.js';
