import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { usageMonth } from '../plugins/month.js';
import { UsageQuery, UsageSchema } from './account-schemas.js';
import { authOf } from './keys.js';

/**
 * GET /v2/usage?month=YYYY-MM: the invoice (spec §1 "one invoice"): one line per billable
 * endpoint called on live keys that month, and the total. Test keys are never billed, so their
 * calls appear nowhere here.
 */
export const usageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v2/usage',
    {
      config: { endpoint: 'usage_get' },
      schema: {
        operationId: 'getUsage',
        tags: ['account'],
        summary: "The month's billable usage by endpoint, and the total",
        querystring: UsageQuery,
        response: { 200: UsageSchema },
      },
    },
    async (request) => {
      const { account, plan } = authOf(request.auth);
      const month = request.query.month ?? usageMonth(app.svc.now());
      const lines = await app.svc.controlPlane.usage(account.id, month);
      lines.sort((a, b) => (a.endpoint < b.endpoint ? -1 : a.endpoint > b.endpoint ? 1 : 0));
      const total = lines.reduce(
        (sum, line) => ({ calls: sum.calls + line.calls, units: sum.units + line.units }),
        { calls: 0, units: 0 },
      );
      return {
        month,
        lines: lines.map(({ endpoint, calls, units }) => ({ endpoint, calls, units })),
        total,
        allowance: plan.monthly_allowance,
      };
    },
  );
};
