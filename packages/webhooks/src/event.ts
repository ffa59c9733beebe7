import { WebhookVerificationError } from './errors.js';

/** The event types the service sends today; `WebhookEvent['type']` also admits later ones. */
export type WebhookEventType = 'batch.completed' | 'batch.failed' | 'batch.cancelled';

/** The webhook envelope (DESIGN §6); for batch events `data.object` is the batch job. */
export interface WebhookEvent<T = unknown> {
  /** `evt_…`; unchanged on every redelivery of the event, so receivers can deduplicate on it. */
  id: string;
  object: 'event';
  /** What happened; a receiver should ignore types it does not know. */
  type: WebhookEventType | (string & {});
  /** Unix seconds when the event happened (not when this delivery was signed). */
  created: number;
  /** The resource the event is about; its shape is not checked here. */
  data: { object: T };
}

/**
 * The signed body parsed as an event envelope, or `invalid_body` naming what is wrong. Only
 * the envelope is checked, and only loosely (no `evt_` prefix, any `type` string) so that a
 * new event type never breaks an old receiver; `data.object` is returned as sent.
 */
export function parseEvent<T>(text: string): WebhookEvent<T> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid('the signed body is not JSON');
  }
  if (!isRecord(value)) throw invalid('the signed body is not a JSON object');
  const problem = envelopeProblem(value);
  if (problem) throw invalid(`the signed body is not a webhook event: ${problem}`);
  return value as unknown as WebhookEvent<T>;
}

function envelopeProblem(event: Record<string, unknown>): string | undefined {
  if (typeof event.id !== 'string' || event.id === '') return 'id is not a non-empty string';
  if (event.object !== 'event') return 'object is not "event"';
  if (typeof event.type !== 'string' || event.type === '') return 'type is not a non-empty string';
  if (!Number.isSafeInteger(event.created) || (event.created as number) < 0) {
    return 'created is not unix seconds';
  }
  if (!isRecord(event.data) || !('object' in event.data)) return 'data.object is missing';
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(message: string): WebhookVerificationError {
  return new WebhookVerificationError('invalid_body', message);
}
