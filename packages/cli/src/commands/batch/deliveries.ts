import type { Store } from '@svc/batch-runner';

export type DeliveryView = Awaited<ReturnType<Store['deliveries']>>[number];

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** An event as the CLI's JSON shows it: snake_case, times in ISO 8601 (the API's conventions). */
export function deliveryJson(event: DeliveryView) {
  return {
    event_id: event.eventId,
    type: event.type,
    state: event.state,
    next_attempt_at: iso(event.nextAttemptAt),
    attempts: event.attempts.map((attempt) => ({
      at: iso(attempt.at),
      status: attempt.status,
      latency_ms: attempt.latencyMs,
      error: attempt.error,
    })),
  };
}

/** One line on an event: its state and last attempt, and what happens next. */
export function describeDelivery(event: DeliveryView | undefined, dbPath?: string): string {
  if (!event) return 'webhook: no event was queued';
  const last = event.attempts.at(-1);
  const outcome = last
    ? last.status !== null
      ? `HTTP ${last.status}`
      : (last.error ?? 'no answer')
    : 'not tried';
  const tries = `${event.attempts.length} attempt${event.attempts.length === 1 ? '' : 's'}`;
  if (event.state === 'delivered')
    return `webhook: ${event.type} ${event.eventId} delivered (${outcome}, ${tries})`;
  if (event.state === 'gone') return `webhook: ${event.eventId} refused with 410 Gone; not retried`;
  if (event.state === 'failed')
    return `webhook: ${event.eventId} failed for 24 h (${outcome}, ${tries}); given up`;
  const next = iso(event.nextAttemptAt) ?? 'soon';
  return `webhook: ${event.eventId} not delivered yet (${outcome}, ${tries}); next attempt ${next}${
    dbPath ? ` by \`svc batch deliver --db ${dbPath}\` or the next \`svc batch run --db ${dbPath}\`` : ''
  }`;
}

/**
 * Waits for the job's event to be tried once, its outcome recorded (the dispatcher polls; an
 * attempt takes ≤ 15 s and is logged as in progress before its request goes out).
 */
export async function firstAttempt(store: Store, jobId: string): Promise<DeliveryView | undefined> {
  for (let waited = 0; waited < 20_000; waited += 100) {
    const [event] = await store.deliveries(jobId);
    if (!event || event.attempts.some((attempt) => !attempt.inProgress)) return event;
    await new Promise((resolveTick) => setTimeout(resolveTick, 100));
  }
  return (await store.deliveries(jobId))[0];
}
