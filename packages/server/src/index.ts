export {
  ConfigError,
  environmentVariables,
  type LoadConfigInput,
  type LoadedConfig,
  loadServerConfig,
  printableConfig,
} from './config.js';
export type { AuthContext, ServerContext } from './context.js';
export type {
  Account,
  ApiKey,
  ControlPlaneStore,
  Environment,
  Plan,
  Token,
  UsageLine,
  WebhookSecret,
} from './control-plane/store.js';
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
export {
  DEFAULT_PLANS,
  type ResolvedServerOptions,
  resolveServerOptions,
  type ServerOptions,
} from './options.js';
