import { randomBytes } from 'node:crypto';
import { isPublicIp } from '@svc/ip-address';
import { signPayload, WEBHOOK_SIGNATURE_HEADER } from '@svc/webhooks';
import { toApiJob } from '../api-job.js';
import type { Delivery, DeliveryOutcome, Store } from '../store.js';
import { postWebhook, type WebhookLookup } from './post.js';
import { nextAttemptAt, parseRetryAfter } from './schedule.js';

/** Options of createWebhookDispatcher. */
export interface WebhookDispatcherOptions {
  store: Store;
  /** Signing secrets, newest first; every one signs during a rotation. */
  secrets: string[];
  /** The SSRF guard. @default isPublicIp (public unicast only) */
  isAllowedAddress?: (ip: string) => boolean;
  /** Resolves webhook host names at connect time; its answers go through the SSRF guard. @default systemLookup (node:dns lookup) */
  lookup?: WebhookLookup;
  /** Clock in ms. @default Date.now */
  now?: () => number;
  /** Jitter source. @default Math.random */
  random?: () => number;
  /** Per-attempt timeout. @default 15000 */
  timeoutMs?: number;
  /** @default 'svc-batch-runner/0.1 (webhook delivery)' */
  userAgent?: string;
  /** Lease on an event while it is being delivered; longer than timeoutMs. @default 60000 */
  leaseMs?: number;
  /** Wait between polls of the outbox when started. @default 1000 */
  pollIntervalMs?: number;
  /** The results URL put in the job inside the event. @default null */
  resultsUrl?: (id: string) => string | null;
}

/** Delivers outbox events: signed POSTs, retried on the 24 h schedule, every attempt logged. */
export interface WebhookDispatcher {
  /** Delivers every event due now; returns how many attempts were made. */
  deliverDue(): Promise<number>;
  start(): void;
  /**
   * Stops the loop and any deliverDue() in progress after its current attempt (events still due
   * wait for the next start()); resolves when that attempt is logged.
   */
  close(): Promise<void>;
}

/** Creates a dispatcher over the store's outbox. */
export function createWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  if (!Array.isArray(options.secrets) || options.secrets.length === 0)
    throw new TypeError('a webhook signing secret is needed');
  const now = options.now ?? Date.now;
  const owner = `deliverer:${process.pid}:${randomBytes(4).toString('hex')}`;
  const leaseMs = options.leaseMs ?? 60_000;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  // Set by close(): a backlog of due events (after an outage, say) is left for the next start
  // instead of holding close() up for one timeout per event.
  let closed = false;

  async function deliver(delivery: Delivery): Promise<void> {
    const job = await options.store.getJob(delivery.jobId);
    const event = {
      id: delivery.eventId,
      object: 'event',
      type: delivery.type,
      created: delivery.created,
      data: { object: job ? toApiJob(job, options.resultsUrl) : null },
    };
    const body = JSON.stringify(event);
    const at = now();
    // A fresh timestamp and signature per attempt; the event id never changes.
    const signature = signPayload(body, options.secrets, { timestamp: Math.floor(at / 1000) });
    const result = await postWebhook(delivery.url, body, {
      headers: {
        'content-type': 'application/json',
        'user-agent': options.userAgent ?? 'svc-batch-runner/0.1 (webhook delivery)',
        [WEBHOOK_SIGNATURE_HEADER]: signature,
      },
      timeoutMs: options.timeoutMs ?? 15_000,
      isAllowedAddress: options.isAllowedAddress ?? isPublicIp,
      lookup: options.lookup,
    });
    let outcome: DeliveryOutcome;
    if (result.status !== null && result.status >= 200 && result.status < 300)
      outcome = { state: 'delivered' };
    else if (result.status === 410) outcome = { state: 'gone' };
    else {
      const next = nextAttemptAt(delivery.attempts + 1, delivery.firstAttemptAt ?? at, {
        now: now(),
        retryAfterMs: parseRetryAfter(result.retryAfter, now()),
        random: options.random,
      });
      outcome = next === null ? { state: 'failed' } : { state: 'pending', nextAttemptAt: next };
    }
    await options.store.recordAttempt(
      delivery,
      { at, status: result.status, latencyMs: result.latencyMs, error: result.error },
      outcome,
    );
  }

  async function deliverDue(): Promise<number> {
    let attempts = 0;
    while (!closed) {
      const delivery = await options.store.claimDelivery(owner, now(), leaseMs);
      if (!delivery) break;
      await deliver(delivery);
      attempts++;
    }
    return attempts;
  }

  return {
    deliverDue,
    start() {
      if (timer) return;
      closed = false;
      const tick = () => {
        running = deliverDue()
          .catch(() => 0)
          .finally(() => {
            if (timer) timer = setTimeout(tick, options.pollIntervalMs ?? 1000);
          });
      };
      timer = setTimeout(tick, 0);
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
