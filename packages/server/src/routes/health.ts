import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import type { GeoDatabaseDescription } from '@svc/geo-resolver';
import type { GeoDatabaseInfo } from '../context.js';
import { API_VERSION } from '../version.js';
import {
  CONTROL_PLANE_OK,
  dnsResolverCheck,
  type HealthCheck,
  HealthCheckSchema,
  probingCheck,
} from './health-checks.js';
import { isOwnerRequest, ProbingHealthSchema, probingFor } from './health-probing.js';

const GeoDatabaseSchema = Type.Object({
  id: Type.String({ description: 'The backend id' }),
  type: Type.String({ description: 'Database type from the file metadata' }),
  built_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'Build time from the file metadata (ISO 8601), null when unknown',
  }),
  source: Type.String({
    description:
      "Where the data was loaded from: the file name (the full path only for the server's owner account), or the bundled data's name",
  }),
  version: Type.Optional(
    Type.String({
      description: "The dataset's version: its package version, or a list's snapshot date or fetch time",
    }),
  ),
  licence: Type.Optional(
    Type.String({ description: 'The licence or public-data statement the data is used under' }),
  ),
  attribution: Type.Optional(
    Type.Union([Type.String(), Type.Null()], {
      description:
        'The attribution the licence requires, to show where results are shown; null when none is required',
    }),
  ),
});

export const HealthSchema = Type.Object(
  {
    status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')], {
      description:
        'ok: every check shown passed; degraded: one failed (named in `failing`). Both are 200, so load balancers keep a degraded server: it answers, but some answers are not verdicts (a failing dns_resolver makes verifications 503 upstream_timeout)',
    }),
    failing: Type.Array(Type.String(), { description: 'The ids of the failed checks; empty when ok' }),
    checks: Type.Array(HealthCheckSchema, {
      description: 'What was checked; the owner account also sees `probing`',
    }),
    version: Type.String({ description: 'API version (2.x.y)', examples: [API_VERSION] }),
    time: Type.String({ format: 'date-time', description: 'The server clock, ISO 8601' }),
    geo: Type.Object({ databases: Type.Array(GeoDatabaseSchema) }),
    probing: Type.Optional(ProbingHealthSchema),
  },
  {
    description:
      'The server is ready (its control-plane store answers; a store that does not is a 500) and how well it can answer',
  },
);

/**
 * GET /v2/health (no key): 200 when the server is ready, meaning its control-plane store answers
 * (a failing store is a 500 `internal_error`, which load balancers read as not ready), with
 * `status` `ok` or `degraded` (a check failed: the DNS resolver's canaries, or for the owner the
 * probing self-check), the API version and the geo databases serving now (file names only, unless
 * the caller is the owner); with a key or token of the owner account, also the email probing
 * self-check (`probing`, see health-probing.ts).
 */
export const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v2/health',
    {
      config: { endpoint: 'health' },
      schema: {
        operationId: 'getHealth',
        tags: ['service'],
        summary: 'Readiness, API version and geo data',
        querystring: Type.Object({
          refresh_probing: Type.Optional(
            Type.Boolean({
              description: 'Owner only: start a new probing self-check now (at most one a minute)',
            }),
          ),
        }),
        response: { 200: HealthSchema },
      },
    },
    async (request) => {
      const svc = app.svc;
      await svc.controlPlane.listPlans();
      const owner = await isOwnerRequest(svc, request);
      // Given descriptions win; else the resolver's own (every file, the bundled data included).
      const given = svc.geoDatabases?.();
      const databases = (given ?? svc.geo.databases().map(describedByResolver)).map((db) => ({
        id: db.id,
        type: db.type,
        built_at: db.built_at === null ? null : new Date(db.built_at).toISOString(),
        // Where files live on the host is the operator's business, not every caller's.
        source: owner ? db.source : withoutDirectories(db.source),
        ...(db.version === undefined ? {} : { version: db.version }),
        ...(db.licence === undefined ? {} : { licence: db.licence }),
        ...(db.attribution === undefined ? {} : { attribution: db.attribution }),
      }));
      const probing = probingFor(svc, owner, request.query.refresh_probing === true);
      const checks = [
        CONTROL_PLANE_OK,
        dnsResolverCheck(svc.verifier.resolverHealth(), owner),
        probingCheck(probing),
      ].filter((check): check is HealthCheck => check !== null);
      const failing = checks.filter((check) => check.status === 'failed').map((check) => check.id);
      return {
        status: failing.length > 0 ? ('degraded' as const) : ('ok' as const),
        failing,
        checks,
        version: API_VERSION,
        time: new Date(svc.now()).toISOString(),
        geo: { databases },
        ...(probing ? { probing } : {}),
      };
    },
  );
};

/** Every absolute path in a description reduced to its file name (`/data/city.mmdb` → `city.mmdb`). */
function withoutDirectories(source: string): string {
  return source.replace(/\/(?:[^\s,()/]+\/)*([^\s,()/]+)/g, '$1');
}

/** A database as the resolver describes it, as /v2/health shows it. */
export function describedByResolver(db: GeoDatabaseDescription): GeoDatabaseInfo {
  return {
    id: db.id,
    type: db.databaseType,
    built_at: db.buildEpoch === null ? null : db.buildEpoch.getTime(),
    source: db.source,
    ...(db.version === undefined ? {} : { version: db.version }),
    ...(db.licence === undefined ? {} : { licence: db.licence }),
    ...(db.attribution === undefined ? {} : { attribution: db.attribution }),
  };
}
