import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { DailyUsageLine } from '../control-plane/store.js';
import { usageMonth } from '../plugins/month.js';
import { UsageQuery, UsageSchema } from './account-schemas.js';
import { authOf } from './keys.js';

/**
 * GET /v2/usage?month=YYYY-MM: the invoice (spec §1 "one invoice"): one line per billable
 * endpoint called on live keys that month, and the total. Test keys are never billed, so their
 * calls appear nowhere here. `days` splits the same usage by UTC day (the dashboard's chart).
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
      const [lines, daily] = await Promise.all([
        app.svc.controlPlane.usage(account.id, month),
        app.svc.controlPlane.usageByDay(account.id, month),
      ]);
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
        days: byDate(daily),
      };
    },
  );
};

/** Groups the store's day × endpoint lines (sorted by day) into one entry per day with its total. */
function byDate(daily: DailyUsageLine[]) {
  const days: {
    date: string;
    calls: number;
    units: number;
    lines: { endpoint: string; calls: number; units: number }[];
  }[] = [];
  for (const { day, endpoint, calls, units } of daily) {
    let last = days.at(-1);
    if (last?.date !== day) {
      last = { date: day, calls: 0, units: 0, lines: [] };
      days.push(last);
    }
    last.calls += calls;
    last.units += units;
    last.lines.push({ endpoint, calls, units });
  }
  return days;
}
