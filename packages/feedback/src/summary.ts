import type { FeedbackEvent } from './event.js';
import { type BounceReading, readBounce } from './read-bounce.js';

/** An event with its bounce read (null for every kind but `hard_bounce`), as stores keep it. */
export interface RecordedFeedbackEvent extends FeedbackEvent {
  reading: BounceReading | null;
}

/** Reads an event's bounce, once, before it is stored. */
export function recordedEvent(event: FeedbackEvent): RecordedFeedbackEvent {
  return { ...event, reading: event.kind === 'hard_bounce' ? readBounce(event) : null };
}

/** The last hard bounce of an address, with what it says about the mailbox. */
export interface HardBounceSummary {
  at: string;
  provider: string;
  bounceType: string | null;
  diagnostic: string | null;
  reading: BounceReading;
}

/** Everything recorded about one address, folded: the latest time of each kind of event. */
export interface AddressSummary {
  address: string;
  events: number;
  lastDeliveredAt: string | null;
  lastHardBounce: HardBounceSummary | null;
  /** The latest hard bounce that counts against the address (mailbox-level). */
  lastMailboxBounceAt: string | null;
  lastSoftBounceAt: string | null;
  lastComplaintAt: string | null;
  lastUnsubscribeAt: string | null;
  lastEventAt: string;
}

/** Whether an address's latest decisive event is a delivery or a mailbox-level bounce; null when neither. */
export type AddressOutcome = 'delivered' | 'bounced' | null;

const later = (a: string | null, b: string): string => (a === null || b > a ? b : a);

/** Folds one event into an address's summary (events may arrive in any order). */
export function foldEvent(summary: AddressSummary | null, event: RecordedFeedbackEvent): AddressSummary {
  const next: AddressSummary = summary
    ? { ...summary, events: summary.events + 1, lastEventAt: later(summary.lastEventAt, event.at) }
    : {
        address: event.address,
        events: 1,
        lastDeliveredAt: null,
        lastHardBounce: null,
        lastMailboxBounceAt: null,
        lastSoftBounceAt: null,
        lastComplaintAt: null,
        lastUnsubscribeAt: null,
        lastEventAt: event.at,
      };
  switch (event.kind) {
    case 'delivered':
      next.lastDeliveredAt = later(next.lastDeliveredAt, event.at);
      break;
    case 'hard_bounce': {
      const reading = event.reading ?? readBounce(event);
      if (next.lastHardBounce === null || event.at >= next.lastHardBounce.at) {
        next.lastHardBounce = {
          at: event.at,
          provider: event.provider,
          bounceType: event.bounceType,
          diagnostic: event.diagnostic,
          reading,
        };
      }
      if (reading.level === 'mailbox') next.lastMailboxBounceAt = later(next.lastMailboxBounceAt, event.at);
      break;
    }
    case 'soft_bounce':
      next.lastSoftBounceAt = later(next.lastSoftBounceAt, event.at);
      break;
    case 'complaint':
      next.lastComplaintAt = later(next.lastComplaintAt, event.at);
      break;
    case 'unsubscribe':
      next.lastUnsubscribeAt = later(next.lastUnsubscribeAt, event.at);
      break;
  }
  return next;
}

/** The address's latest decisive outcome: a delivery, or a mailbox-level hard bounce after it. */
export function addressOutcome(summary: AddressSummary): AddressOutcome {
  const { lastDeliveredAt: delivered, lastMailboxBounceAt: bounced } = summary;
  if (bounced !== null && (delivered === null || bounced > delivered)) return 'bounced';
  return delivered !== null ? 'delivered' : null;
}

/** Two summaries of one address (from two accounts) as one. */
export function mergeSummaries(a: AddressSummary, b: AddressSummary): AddressSummary {
  const latest = (x: string | null, y: string | null): string | null =>
    x === null ? y : y === null ? x : x > y ? x : y;
  const bounce =
    a.lastHardBounce === null
      ? b.lastHardBounce
      : b.lastHardBounce === null || a.lastHardBounce.at >= b.lastHardBounce.at
        ? a.lastHardBounce
        : b.lastHardBounce;
  return {
    address: a.address,
    events: a.events + b.events,
    lastDeliveredAt: latest(a.lastDeliveredAt, b.lastDeliveredAt),
    lastHardBounce: bounce,
    lastMailboxBounceAt: latest(a.lastMailboxBounceAt, b.lastMailboxBounceAt),
    lastSoftBounceAt: latest(a.lastSoftBounceAt, b.lastSoftBounceAt),
    lastComplaintAt: latest(a.lastComplaintAt, b.lastComplaintAt),
    lastUnsubscribeAt: latest(a.lastUnsubscribeAt, b.lastUnsubscribeAt),
    lastEventAt: latest(a.lastEventAt, b.lastEventAt) as string,
  };
}

/** Folds events (in any order) into summaries per address. */
export function foldAll(events: Iterable<RecordedFeedbackEvent>): Map<string, AddressSummary> {
  const byAddress = new Map<string, AddressSummary>();
  for (const event of events)
    byAddress.set(event.address, foldEvent(byAddress.get(event.address) ?? null, event));
  return byAddress;
}

/** One address's stored summaries (JSON, one per account) as one; null when there are none. */
export function mergeStoredSummaries(texts: Iterable<string>): AddressSummary | null {
  let merged: AddressSummary | null = null;
  for (const text of texts) {
    const next = JSON.parse(text) as AddressSummary;
    merged = merged ? mergeSummaries(merged, next) : next;
  }
  return merged;
}

/** Stored summaries (JSON) of many addresses, several accounts' of one address merged. */
export function mergeByAddress(texts: Iterable<string>): Map<string, AddressSummary> {
  const merged = new Map<string, AddressSummary>();
  for (const text of texts) {
    const summary = JSON.parse(text) as AddressSummary;
    const seen = merged.get(summary.address);
    merged.set(summary.address, seen ? mergeSummaries(seen, summary) : summary);
  }
  return merged;
}
