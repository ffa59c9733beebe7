import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { createVerifier } from '@svc/email-verifier';
import { createGeoResolver, type GeoResolver, openMmdbBackend } from '@svc/geo-resolver';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { createAccount } from '../control-plane/accounts.js';
import { createServerSecrets } from '../control-plane/secrets.js';
import type { ControlPlaneStore } from '../control-plane/store.js';
import { createMemoryControlPlaneStore } from '../control-plane/stores/memory.js';
import { type CreateServerOptions, createServer } from '../server.js';

/** MaxMind's test databases (shared fixtures): small, real mmdb files. */
export const GEO_FIXTURES = new URL('../../../../fixtures/maxmind-db/test-data/', import.meta.url).pathname;

let fixtureGeo: Promise<GeoResolver> | undefined;
/** A real resolver over MaxMind's City test database (opened once per test file). */
export function fixtureGeoResolver(): Promise<GeoResolver> {
  fixtureGeo ??= (async () =>
    createGeoResolver({
      backends: [await openMmdbBackend({ source: `${GEO_FIXTURES}GeoIP2-City-Test.mmdb` })],
      timezoneFromCoordinates: false,
    }))();
  return fixtureGeo;
}

/** A server over a memory store for tests, with a clock the test moves. */
export interface TestServer {
  app: FastifyInstance;
  store: ControlPlaneStore;
  clock: { now: number };
  /** A new account on `planId` with its first keys (secrets in `liveKey.secret`, `testKey.secret`). */
  account(planId?: string, name?: string): ReturnType<typeof createAccount>;
  /** An injected request with `key` in `X-API-Key` and, when given, `body` as its JSON payload. */
  call(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    key: string,
    body?: unknown,
  ): Promise<LightMyRequestResponse>;
}

/**
 * `createServer` with a memory control plane, a random server key, the fixture geo data, a
 * verifier that is never asked (no DNS configured for it), and a manual clock (`clock.now`).
 * Pass `routes` to mount a route plugin under test; other services can be overridden.
 */
export async function createTestServer(
  overrides: Partial<CreateServerOptions> & { routes?: FastifyPluginAsyncTypebox[] } = {},
): Promise<TestServer> {
  const clock = { now: Date.UTC(2026, 10, 23, 12, 0, 0) };
  const store = overrides.controlPlane ?? createMemoryControlPlaneStore();
  const secrets = overrides.secrets ?? createServerSecrets(randomBytes(32));
  const { routes = [], ...rest } = overrides;
  const app = await createServer({
    // Never asked, so its resolver is never checked either.
    verifier: createVerifier({ resolverHealth: false }),
    geo: await fixtureGeoResolver(),
    now: () => clock.now,
    ...rest,
    controlPlane: store,
    secrets,
    options: { logLevel: 'silent', ...overrides.options },
  });
  for (const plugin of routes) await app.withTypeProvider<TypeBoxTypeProvider>().register(plugin);
  const deps = { controlPlane: store, secrets, now: () => clock.now };
  return {
    app,
    store,
    clock,
    account: (planId = 'free', name = 'test account') => createAccount(deps, { name, planId }),
    call: (method, url, key, body) =>
      app.inject({
        method,
        url,
        headers: { 'x-api-key': key },
        ...(body === undefined ? {} : { payload: body as object }),
      }),
  };
}
