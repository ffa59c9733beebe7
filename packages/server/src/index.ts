// The root export of @svc/server: what its README documents under "What this package exports".
// Plugins, routes and the other building blocks of a server of one's own are at
// `@svc/server/plugins` (src/plugins/index.ts); everything else is internal.
export {
  ConfigError,
  environmentVariables,
  type LoadedConfig,
  loadServerConfig,
  printableConfig,
  serveFlags,
} from './config.js';
export {
  type AccountDeps,
  authenticate,
  CREDENTIAL_CACHE_MS,
  createAccount,
  createKey,
  type IssuedKey,
  type IssuedWebhookSecret,
  isKeyUsable,
  mintToken,
  revokeKey,
  rotateKey,
  setAccountDisabled,
  setAccountPlan,
} from './control-plane/accounts.js';
export { copyControlPlane } from './control-plane/copy.js';
export { createServerSecrets, type ServerSecrets } from './control-plane/secrets.js';
export { loadServerKey } from './control-plane/server-key.js';
export type { Account, ApiKey, ControlPlaneStore, Environment, Plan, Token } from './control-plane/store.js';
export { createMemoryControlPlaneStore } from './control-plane/stores/memory.js';
export {
  createPostgresControlPlaneStore,
  type PostgresControlPlaneStoreOptions,
} from './control-plane/stores/postgres.js';
export {
  migratePostgresControlPlane,
  POSTGRES_MIGRATIONS as POSTGRES_CONTROL_PLANE_MIGRATIONS,
} from './control-plane/stores/postgres-migrate.js';
export {
  CONTROL_PLANE_DB_FILE,
  createSqliteControlPlaneStore,
  type SqliteControlPlaneStoreOptions,
} from './control-plane/stores/sqlite.js';
export {
  createWriteBehindUsageStore,
  type WriteBehindUsageOptions,
} from './control-plane/write-behind-usage.js';
export { EARLIER_SERVER_DATA_DIR, type ServerDataDirInput, serverDataDir } from './data-dir.js';
export { ENDPOINTS, type EndpointId, type EndpointSpec } from './endpoints.js';
export type { RateLimiter } from './limiter/limiter.js';
export { createMemoryRateLimiter } from './limiter/memory.js';
export { createRedisRateLimiter } from './limiter/redis.js';
export {
  DEFAULT_PLANS,
  type ResolvedServerOptions,
  resolveServerOptions,
  type ServerOptions,
} from './options.js';
export { serverDoctorOptions } from './probing-health.js';
export { keyView } from './routes/account-schemas.js';
export { type RunningServer, type ServeOptions, serve } from './serve.js';
export { type CreateServerOptions, createServer } from './server.js';
export { API_VERSION } from './version.js';
