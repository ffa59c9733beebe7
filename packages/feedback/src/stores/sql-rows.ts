import type { FeedbackKind } from '../event.js';
import type { BounceLevel, BounceReading } from '../read-bounce.js';
import type { RecordedFeedbackEvent } from '../summary.js';

/** An event as the SQL stores keep it (both backends share the column names). */
export interface EventRow {
  provider: string;
  event_id: string;
  address: string;
  kind: string;
  at: string;
  bounce_type: string | null;
  diagnostic: string | null;
  reading: string | null;
}

export function toEventRow(event: RecordedFeedbackEvent): EventRow {
  return {
    provider: event.provider,
    event_id: event.eventId,
    address: event.address,
    kind: event.kind,
    at: event.at,
    bounce_type: event.bounceType,
    diagnostic: event.diagnostic,
    reading: event.reading ? JSON.stringify(event.reading) : null,
  };
}

export function fromEventRow(row: EventRow): RecordedFeedbackEvent {
  return {
    provider: row.provider,
    eventId: row.event_id,
    address: row.address,
    kind: row.kind as FeedbackKind,
    at: row.at,
    bounceType: row.bounce_type,
    diagnostic: row.diagnostic,
    reading: row.reading ? (JSON.parse(row.reading) as BounceReading) : null,
  };
}

export type { BounceLevel };
