import { ENDPOINTS } from '../endpoints.js';
import { endpointOf } from './auth.js';
import { globalPlugin } from './global-plugin.js';
import { setQuotaHeaders } from './limits.js';
import { usageDay, usageMonth } from './month.js';

/**
 * Meters billable calls on live keys: when a billable endpoint answers 2xx, its units
 * (`request.billableUnits`, default 1; bulk and batch set their record count; 0 bills nothing)
 * are added to the account's month in the store at onSend, BEFORE the body leaves, so a call
 * is never served without being recorded: if recording fails, the client gets 500
 * `internal_error` instead of the result. Test keys are never billed. The call is counted on its
 * UTC day too (the dashboard's chart), in the same store transaction.
 */
export const usagePlugin = globalPlugin('svc-usage', async (app) => {
  const svc = app.svc;
  app.decorateRequest('billableUnits', undefined);
  app.addHook('onSend', async (request, reply, payload) => {
    const endpoint = endpointOf(request);
    const auth = request.auth;
    if (!endpoint || !auth || auth.environment !== 'live' || !ENDPOINTS[endpoint].billable) return payload;
    if (reply.statusCode < 200 || reply.statusCode >= 300) return payload;
    const units = request.billableUnits ?? 1;
    if (units <= 0) return payload;
    const now = svc.now();
    const used = await svc.controlPlane.recordUsage(
      auth.account.id,
      endpoint,
      usageMonth(now),
      units,
      usageDay(now),
    );
    setQuotaHeaders(reply, auth.plan.monthly_allowance, used);
    return payload;
  });
});
