import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { EndpointId } from '../endpoints.js';
import { assertAllowance } from '../plugins/limits.js';

/**
 * Tiny routes under /test/<endpoint id> that declare an endpoint id and answer who called, so
 * the cross-cutting plugins (auth, limits, usage) are tested through real routes without the
 * capability libraries. `?units=n` sets billableUnits; `?need=n` calls assertAllowance first;
 * `?status=n` answers with that status.
 */
export const probeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  for (const endpoint of [
    'verify_email',
    'verify_email_bulk',
    'geo_ip',
    'usage_get',
    'tokens_create',
    'keys_list',
  ] as EndpointId[]) {
    app.get(
      `/test/${endpoint}`,
      {
        config: { endpoint },
        schema: {
          querystring: Type.Object({
            units: Type.Optional(Type.Integer({ minimum: 0 })),
            need: Type.Optional(Type.Integer({ minimum: 1 })),
            status: Type.Optional(Type.Integer({ minimum: 200, maximum: 599 })),
          }),
        },
      },
      async (request, reply) => {
        if (request.query.need !== undefined) await assertAllowance(app.svc, request, request.query.need);
        if (request.query.units !== undefined) request.billableUnits = request.query.units;
        return reply.code(request.query.status ?? 200).send({
          account_id: request.auth?.account.id ?? null,
          environment: request.auth?.environment ?? null,
          token: request.auth?.token !== null && request.auth?.token !== undefined,
        });
      },
    );
  }
};
