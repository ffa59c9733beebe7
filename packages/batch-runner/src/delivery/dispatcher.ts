import { randomBytes } from 'node:crypto';
import { ServiceError } from '@svc/core';
import { isPublicIp } from '@svc/ip-address';
import { signPayload, WEBHOOK_SIGNATURE_HEADER } from '@svc/webhooks';
import { toApiJob } from '../api-job.js';
import type { Delivery, DeliveryOutcome, EventView, JobScope, Store } from '../store.js';
import { type AttemptResult, postWebhook, type WebhookLookup } from './post.js';
import { nextAttemptAt, parseRetryAfter } from './schedule.js';
import { STANDARD_WEBHOOK_HEADERS, signStandardWebhook } from './standard-webhooks.js';

/** Whose event is being signed: what a per-account secret resolver is asked. */
export interface WebhookSecretsQuery {
  /** The job's owning account, or null for a job without one. */
  accountId: string | null;
  jobId: string;
  eventId: string;
}

/** Options of createWebhookDispatcher. */
export interface WebhookDispatcherOptions {
  store: Store;
  /**
   * Signing secrets for every event, newest first; every one signs during a rotation. Give this
   * or `secretsFor`.
   */
  secrets?: string[];
  /**
   * The signing secrets of one event, newest first, looked up per attempt (a server signs each
   * account's events with that account's active secrets, so a rotation takes effect at once).
   * An empty list or a throw makes the attempt fail with the reason logged; the schedule retries.
   */
  secretsFor?: (query: WebhookSecretsQuery) => readonly string[] | Promise<readonly string[]>;
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

/** What sendWebhookEvent needs besides the event. */
export interface SendWebhookOptions {
  /** Signing secrets, newest first (one signature each, in both header formats). */
  secrets: readonly string[];
  /** The SSRF guard. @default isPublicIp */
  isAllowedAddress?: (ip: string) => boolean;
  lookup?: WebhookLookup;
  /** @default 15000 */
  timeoutMs?: number;
  /** @default 'svc-batch-runner/0.1 (webhook delivery)' */
  userAgent?: string;
  /** Clock in ms (the signatures' timestamp). @default Date.now */
  now?: () => number;
}

/** A webhook envelope (DESIGN §6) as sent. */
export interface WebhookEnvelope {
  id: string;
  object: 'event';
  type: string;
  created: number;
  data: { object: unknown };
}

/**
 * The headers of one signed delivery: `X-Service-Signature` (Stripe's scheme, `@svc/webhooks`)
 * and the Standard Webhooks trio `webhook-id` (the event id, the same on every attempt),
 * `webhook-timestamp` and `webhook-signature`, both signed at `timestamp` (unix seconds).
 */
export function webhookHeaders(
  eventId: string,
  body: string,
  secrets: readonly string[],
  timestamp: number,
  userAgent = 'svc-batch-runner/0.1 (webhook delivery)',
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': userAgent,
    [WEBHOOK_SIGNATURE_HEADER]: signPayload(body, secrets, { timestamp }),
    [STANDARD_WEBHOOK_HEADERS.id]: eventId,
    [STANDARD_WEBHOOK_HEADERS.timestamp]: String(timestamp),
    [STANDARD_WEBHOOK_HEADERS.signature]: signStandardWebhook(eventId, timestamp, body, secrets),
  };
}

/**
 * Signs and POSTs one event once (a fresh timestamp, both header formats, the SSRF guard): what
 * every delivery attempt does, and what a "send a test event" button needs.
 */
export function sendWebhookEvent(
  url: string,
  event: WebhookEnvelope,
  options: SendWebhookOptions,
): Promise<AttemptResult> {
  const body = JSON.stringify(event);
  const timestamp = Math.floor((options.now ?? Date.now)() / 1000);
  return postWebhook(url, body, {
    headers: webhookHeaders(event.id, body, options.secrets, timestamp, options.userAgent),
    timeoutMs: options.timeoutMs ?? 15_000,
    isAllowedAddress: options.isAllowedAddress ?? isPublicIp,
    lookup: options.lookup,
  });
}

/** Options of one resend. */
export interface ResendOptions {
  /** This attempt's timeout, when a caller waits for it (an HTTP request with a deadline). @default the dispatcher's timeoutMs */
  timeoutMs?: number;
}

/** Delivers outbox events: signed POSTs, retried on the 24 h schedule, every attempt logged. */
export interface WebhookDispatcher {
  /** Delivers every event due now; returns how many attempts were made. */
  deliverDue(): Promise<number>;
  /**
   * Delivers one event again now, whatever its state: the same event id, one more attempt,
   * logged with `trigger: 'resend'`. A 2xx makes it `delivered`, a 410 `gone`; another failure
   * leaves a finished event as it was, and an event still on its schedule keeps its schedule.
   * Resolves to the event with its attempts, or null when there is no such event (or its job is
   * outside `scope`); `invalid_request` while the event is being delivered by the schedule.
   */
  resend(eventId: string, scope?: JobScope, options?: ResendOptions): Promise<EventView | null>;
  start(): void;
  /**
   * Stops the loop and any deliverDue() in progress after its current attempt (events still due
   * wait for the next start()); resolves when that attempt is logged.
   */
  close(): Promise<void>;
}

/** Creates a dispatcher over the store's outbox. */
export function createWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  const fixed = options.secrets;
  if (options.secretsFor === undefined && (!Array.isArray(fixed) || fixed.length === 0))
    throw new TypeError('a webhook signing secret is needed (secrets or secretsFor)');
  if (options.secretsFor !== undefined && typeof options.secretsFor !== 'function')
    throw new TypeError('secretsFor must be a function');
  const now = options.now ?? Date.now;
  const owner = `deliverer:${process.pid}:${randomBytes(4).toString('hex')}`;
  const leaseMs = options.leaseMs ?? 60_000;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  // Set by close(): a backlog of due events (after an outage, say) is left for the next start
  // instead of holding close() up for one timeout per event.
  let closed = false;

  /** The event's secrets, or why there are none (logged as the attempt's error). */
  async function secretsOf(delivery: Delivery): Promise<readonly string[] | string> {
    if (!options.secretsFor) return fixed as string[];
    const whose = delivery.accountId ? `account ${delivery.accountId}` : 'a job without an account';
    try {
      const list = await options.secretsFor({
        accountId: delivery.accountId,
        jobId: delivery.jobId,
        eventId: delivery.eventId,
      });
      return list.length > 0 ? list : `no webhook signing secret for ${whose}`;
    } catch (error) {
      return `the webhook signing secrets of ${whose} could not be read: ${(error as Error).message}`;
    }
  }

  async function deliver(delivery: Delivery, timeoutMs = options.timeoutMs): Promise<void> {
    const job = await options.store.getJob(delivery.jobId);
    const event: WebhookEnvelope = {
      id: delivery.eventId,
      object: 'event',
      type: delivery.type,
      created: delivery.created,
      data: { object: job ? toApiJob(job, options.resultsUrl) : null },
    };
    const at = now();
    const trigger = delivery.resendOf !== undefined ? ('resend' as const) : undefined;
    // Logged before the request goes out: a crash between sending and recording the outcome
    // still leaves this attempt in the log, and the next one (the same event id) follows it.
    if (!(await options.store.beginAttempt(delivery, { at, ...(trigger && { trigger }) }))) return;
    const secrets = await secretsOf(delivery);
    // A fresh timestamp and signature per attempt; the event id never changes.
    const result: AttemptResult =
      typeof secrets === 'string'
        ? { status: null, latencyMs: 0, error: secrets, retryAfter: null, bodyExcerpt: '' }
        : await sendWebhookEvent(delivery.url, event, {
            secrets,
            isAllowedAddress: options.isAllowedAddress,
            lookup: options.lookup,
            timeoutMs,
            userAgent: options.userAgent,
            now: () => at,
          });
    const ok = result.status !== null && result.status >= 200 && result.status < 300;
    let outcome: DeliveryOutcome;
    if (ok) outcome = { state: 'delivered' };
    else if (result.status === 410) outcome = { state: 'gone' };
    else if (delivery.resendOf !== undefined && delivery.resendOf !== 'pending')
      outcome = { state: delivery.resendOf };
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
      {
        at,
        status: result.status,
        latencyMs: result.latencyMs,
        error: result.error,
        ...(trigger && { trigger }),
      },
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
    async resend(eventId, scope, resendOptions = {}) {
      const delivery = await options.store.claimEvent(eventId, owner, now(), leaseMs, scope);
      if (delivery === null) return null;
      if (delivery === 'busy')
        throw new ServiceError(
          'invalid_request',
          `event ${eventId} is being delivered right now; ask again once that attempt is logged`,
        );
      await deliver(delivery, resendOptions.timeoutMs ?? options.timeoutMs);
      return options.store.getEvent(eventId, scope);
    },
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
