import { isWriteBehindUsageStore } from '../control-plane/write-behind-usage.js';
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
  const writeBehind = isWriteBehindUsageStore(svc.controlPlane) ? svc.controlPlane : undefined;
  app.decorateRequest('billableUnits', undefined);
  // A callback hook (see global-plugin.ts): only a billable answer waits, for its record.
  app.addHook('onSend', (request, reply, payload, done) => {
    const endpoint = endpointOf(request);
    const auth = request.auth;
    const units = request.billableUnits ?? 1;
    if (
      !endpoint ||
      !auth ||
      auth.environment !== 'live' ||
      !ENDPOINTS[endpoint].billable ||
      reply.statusCode < 200 ||
      reply.statusCode >= 300 ||
      units <= 0
    ) {
      done(null, payload);
      return;
    }
    const now = svc.now();
    const month = usageMonth(now);
    const day = usageDay(now);
    const recorded = (used: number) => {
      setQuotaHeaders(reply, auth.plan.monthly_allowance, used);
      done(null, payload);
    };
    // Usage written behind keeps the month's total in memory and answers at once: no promise.
    const used = writeBehind?.recordUsageSync(auth.account.id, endpoint, month, units, day);
    if (used !== undefined) recorded(used);
    else
      svc.controlPlane
        .recordUsage(auth.account.id, endpoint, month, units, day)
        .then(recorded, (error: Error) => done(error));
  });
});
