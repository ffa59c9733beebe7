import type { BatchRunner, Store as BatchStore } from '@svc/batch-runner';
import type { Verifier } from '@svc/email-verifier';
import type { GeoResolver } from '@svc/geo-resolver';
import type {} from 'fastify';
import type { ServerSecrets } from './control-plane/secrets.js';
import type { Account, ApiKey, ControlPlaneStore, Environment, Plan, Token } from './control-plane/store.js';
import type { EndpointId } from './endpoints.js';
import type { RateLimiter } from './limiter/limiter.js';
import type { ResolvedServerOptions } from './options.js';

/** Who is calling: set by the auth plugin on every request to an authenticated endpoint. */
export interface AuthContext {
  account: Account;
  plan: Plan;
  environment: Environment;
  /** The key presented, or the key that minted the token presented. */
  key: ApiKey;
  token: Token | null;
}

/**
 * What the route plugins share, decorated on the Fastify instance as `app.svc`. Built once by
 * `createServer` (or by whoever mounts the plugins in their own server).
 */
export interface ServerContext {
  options: ResolvedServerOptions;
  controlPlane: ControlPlaneStore;
  /**
   * Seals webhook secrets and signs cursors under the server secret key
   * (`createServerSecrets(loadServerKey({ dataDir }).key)`).
   */
  secrets: ServerSecrets;
  limiter: RateLimiter;
  /** Live verifier (real DNS/SMTP); test keys use the sandbox instead. */
  verifier: Verifier;
  geo: GeoResolver;
  batch: { store: BatchStore; runner: BatchRunner | null };
  /** ms since the epoch; injectable for tests. */
  now(): number;
}

declare module 'fastify' {
  interface FastifyInstance {
    svc: ServerContext;
  }
  interface FastifyRequest {
    /** Null on endpoints that need no key. */
    auth: AuthContext | null;
    /**
     * Units this request bills when it succeeds: set by handlers of bulk and batch endpoints
     * (records), 0 for a response that is not billed (a company enrichment miss); default 1 on
     * billable endpoints.
     */
    billableUnits: number | undefined;
  }
  interface FastifyContextConfig {
    /** Which endpoint this route is (auth, plan, limits and usage read it). */
    endpoint?: EndpointId;
  }
}
