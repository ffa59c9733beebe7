import { ServiceError } from '@svc/core';

/** What a provider reported about one message to one address. */
export const FEEDBACK_KINDS = [
  'delivered',
  'hard_bounce',
  'soft_bounce',
  'complaint',
  'unsubscribe',
] as const;
export type FeedbackKind = (typeof FEEDBACK_KINDS)[number];

/** Longest field values kept; a provider's event with longer ones is refused, not truncated silently. */
export const FEEDBACK_LIMITS = {
  address: 320,
  eventId: 200,
  provider: 40,
  bounceType: 120,
  diagnostic: 2000,
} as const;

/**
 * One event as a provider reported it, in the provider-neutral form every source (webhook, CSV,
 * generic JSON) is turned into. `eventId` is the provider's own id: recording the same
 * `(provider, eventId)` twice for one account stores it once.
 */
export interface FeedbackEvent {
  provider: string;
  eventId: string;
  /** The recipient, lower-cased and trimmed (`normaliseFeedbackAddress`). */
  address: string;
  kind: FeedbackKind;
  /** When the provider says it happened (ISO 8601, UTC). */
  at: string;
  /** The provider's own classification of a bounce (`Permanent/NoEmail`, `hard`, …); null otherwise. */
  bounceType: string | null;
  /** The receiving server's reply as the provider relayed it (`smtp; 550 5.1.1 user unknown`); null when none. */
  diagnostic: string | null;
}

const ADDRESS = /^[^\s@]{1,64}@[^\s@]{1,253}$/;

/** Lower-cases and trims an address; null when it is not `local@domain`. */
export function normaliseFeedbackAddress(address: unknown): string | null {
  if (typeof address !== 'string') return null;
  // Some providers send `"Name" <a@b>`: keep the address inside the brackets.
  const bracketed = /<([^<>]+)>\s*$/.exec(address);
  const bare = (bracketed?.[1] ?? address).trim().toLowerCase();
  return bare.length <= FEEDBACK_LIMITS.address && ADDRESS.test(bare) ? bare : null;
}

/** The domain part of a normalised address. */
export function domainOf(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1);
}

/**
 * Checks one event and returns it normalised (address lower-cased, time as ISO UTC, over-long
 * text refused). Throws a `validation_error` naming the field: bad input is refused, never stored.
 */
export function checkFeedbackEvent(event: {
  provider: unknown;
  eventId: unknown;
  address: unknown;
  kind: unknown;
  at: unknown;
  bounceType?: unknown;
  diagnostic?: unknown;
}): FeedbackEvent {
  const refuse = (field: string, problem: string): never => {
    throw new ServiceError('invalid_request', `feedback event: ${field} ${problem}`);
  };
  const text = (field: keyof typeof FEEDBACK_LIMITS, value: unknown, optional: boolean): string | null => {
    if (value === undefined || value === null || value === '') {
      return optional ? null : refuse(field, 'is required');
    }
    if (typeof value !== 'string') return refuse(field, 'must be a string');
    if (value.length > FEEDBACK_LIMITS[field])
      return refuse(field, `is longer than ${FEEDBACK_LIMITS[field]} characters`);
    return value;
  };
  const provider = text('provider', event.provider, false) as string;
  const eventId = text('eventId', event.eventId, false) as string;
  const address = normaliseFeedbackAddress(event.address) ?? refuse('address', 'is not an email address');
  if (typeof event.kind !== 'string' || !(FEEDBACK_KINDS as readonly string[]).includes(event.kind)) {
    refuse('kind', `must be one of ${FEEDBACK_KINDS.join(', ')}`);
  }
  const at = toIsoTime(event.at) ?? refuse('at', 'is not a time (ISO 8601 or Unix seconds)');
  return {
    provider,
    eventId,
    address,
    kind: event.kind as FeedbackKind,
    at,
    bounceType: text('bounceType', event.bounceType, true),
    diagnostic: text('diagnostic', event.diagnostic, true),
  };
}

/** A time as ISO 8601 UTC from an ISO string, a Date, or Unix seconds / milliseconds; null otherwise. */
export function toIsoTime(value: unknown): string | null {
  let ms: number;
  if (value instanceof Date) ms = value.getTime();
  else if (typeof value === 'number') ms = value < 1e11 ? value * 1000 : value;
  else if (typeof value === 'string' && /^\d+(\.\d+)?$/.test(value)) {
    const n = Number(value);
    ms = n < 1e11 ? n * 1000 : n;
  } else if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value)) ms = Date.parse(value);
  else return null;
  // Between 2000 and 2200: anything else is a unit mistake, not a time.
  if (!Number.isFinite(ms) || ms < 946_684_800_000 || ms > 7_258_118_400_000) return null;
  return new Date(Math.round(ms)).toISOString();
}
