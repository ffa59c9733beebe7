import type { BatchRunner, Store as BatchStore } from '@svc/batch-runner';
import type { Verifier } from '@svc/email-verifier';
import type { Enricher } from '@svc/enricher';
import type { GeoResolver } from '@svc/geo-resolver';
import type {} from 'fastify';
import type { ServerSecrets } from './control-plane/secrets.js';
import type { Account, ApiKey, ControlPlaneStore, Environment, Plan, Token } from './control-plane/store.js';
import type { EndpointId } from './endpoints.js';
import type { ServerFeedback } from './feedback/serve-feedback.js';
import type { RateLimiter } from './limiter/limiter.js';
import type { ResolvedServerOptions } from './options.js';
import type { ProbingHealth } from './probing-health.js';

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
  /** Live enricher for /v2/enrich (test keys use the sandbox one); null: those routes answer 500 saying so. */
  enricher: Enricher | null;
  batch: { store: BatchStore; runner: BatchRunner | null };
  /** Delivery feedback (`/v2/feedback`, history on live verifications); null: off, those routes answer 404. */
  feedback: ServerFeedback | null;
  /** ms since the epoch; injectable for tests. */
  now(): number;
  /**
   * The geo databases serving now, for GET /v2/health (re-read on every call, so a reload
   * shows). Optional: without it health lists none.
   */
  geoDatabases?(): GeoDatabaseInfo[];
  /** The email probing self-check GET /v2/health shows the owner (cached; see probing-health.ts). */
  probingHealth?: ProbingHealth;
}

/** One geo database as GET /v2/health reports it. */
export interface GeoDatabaseInfo {
  /** The backend's id (e.g. `dbip-city-lite`). */
  id: string;
  /** The database type from its metadata (e.g. `DBIP-City-Lite`, `GeoLite2-ASN`). */
  type: string;
  /** Build time from its metadata; null when the data has none. ms since the epoch. */
  built_at: number | null;
  /** Where it was loaded from (a file path or a package name). */
  source: string;
  /** The dataset's version (package version, list snapshot or fetch time), when known. */
  version?: string;
  /** The licence or public-data statement it is used under, when known. */
  licence?: string;
  /** The attribution its licence requires; null when none is required. */
  attribution?: string | null;
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
    /**
     * Fields a route adds to the request's log line (after the standard ones), e.g. how each
     * enrichment adapter answered. Ours only: no header, key or body text goes here.
     */
    logFields: Record<string, unknown> | undefined;
  }
  interface FastifyContextConfig {
    /** Which endpoint this route is (auth, plan, limits and usage read it). */
    endpoint?: EndpointId;
  }
}
