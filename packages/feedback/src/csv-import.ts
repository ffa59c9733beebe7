import { createHash } from 'node:crypto';
import { splitCsvLine } from '@svc/core';
import { checkFeedbackEvent, type FeedbackEvent, type FeedbackKind } from './event.js';

/** Column names accepted for each field (first match wins; case-insensitive). */
const COLUMNS = {
  address: ['address', 'email', 'recipient', 'to', 'email_address'],
  event: ['event', 'type', 'kind', 'status', 'record_type'],
  at: ['at', 'timestamp', 'time', 'date', 'created_at', 'event_time'],
  id: ['id', 'event_id', 'sg_event_id', 'message_id', 'messageid'],
  provider: ['provider'],
  bounceType: ['bounce_type', 'bouncetype', 'bounce_classification', 'severity'],
  diagnostic: ['diagnostic', 'reason', 'diagnostic_code', 'details', 'response', 'smtp_response'],
} as const;

/** Event names of common provider exports, as our kinds; anything else is skipped. */
const EVENT_NAMES: Record<string, FeedbackKind> = {
  delivered: 'delivered',
  delivery: 'delivered',
  hard_bounce: 'hard_bounce',
  hardbounce: 'hard_bounce',
  bounce: 'hard_bounce',
  bounced: 'hard_bounce',
  failed: 'hard_bounce',
  soft_bounce: 'soft_bounce',
  softbounce: 'soft_bounce',
  deferred: 'soft_bounce',
  transient: 'soft_bounce',
  complaint: 'complaint',
  complained: 'complaint',
  spamreport: 'complaint',
  spam: 'complaint',
  spamcomplaint: 'complaint',
  unsubscribe: 'unsubscribe',
  unsubscribed: 'unsubscribe',
};

/** Bounce types that make a `bounce` row soft (a temporary failure). */
const SOFT_TYPES = new Set(['transient', 'temporary', 'soft', 'softbounce', 'undetermined']);

/** One row of an import: an event, a row skipped (an open, a click), or why it was refused. */
export type CsvImportRow =
  | { line: number; event: FeedbackEvent }
  | { line: number; skipped: string }
  | { line: number; error: string };

/** Most characters of one CSV line (a diagnostic can be long; a line beyond this is refused). */
const MAX_LINE = 8192;

/**
 * Reads a CSV export of past events (a header row, then one event per row) as feedback events.
 * The columns are found by name (`address`/`email`/`recipient`, `event`/`type`, `at`/`timestamp`,
 * optional `id`, `provider`, `bounce_type`, `diagnostic`/`reason`); event names of the common
 * providers' exports are understood (`bounce`, `spamreport`, `deferred`, …). A row without an id
 * gets one from its content, so importing a file twice stores it once. Bad rows are reported by
 * line and skipped; the rest are read.
 */
export async function* readFeedbackCsv(
  lines: AsyncIterable<string> | Iterable<string>,
  options: { provider?: string } = {},
): AsyncGenerator<CsvImportRow> {
  let header: string[] | null = null;
  let index: Partial<Record<keyof typeof COLUMNS, number>> = {};
  let line = 0;
  for await (const raw of lines) {
    line += 1;
    const text = raw.replace(/\r$/, '');
    if (text.trim() === '') continue;
    if (text.length > MAX_LINE) {
      yield { line, error: `longer than ${MAX_LINE} characters` };
      continue;
    }
    const cells = splitCsvLine(text);
    if (header === null) {
      header = cells.map((cell) =>
        cell
          .trim()
          .toLowerCase()
          .replace(/^\ufeff/, ''),
      );
      index = columnIndex(header);
      if (index.address === undefined || index.event === undefined || index.at === undefined) {
        throw new TypeError(
          `the CSV header needs an address column (${COLUMNS.address.join('/')}), an event column (${COLUMNS.event.join('/')}) and a time column (${COLUMNS.at.join('/')}); got: ${header.join(', ')}`,
        );
      }
      continue;
    }
    const cell = (field: keyof typeof COLUMNS): string | undefined => {
      const at = index[field];
      const value = at === undefined ? undefined : cells[at]?.trim();
      return value === '' ? undefined : value;
    };
    const name = (cell('event') ?? '').toLowerCase().replace(/[\s-]+/g, '_');
    let kind = EVENT_NAMES[name] ?? EVENT_NAMES[name.replace(/_/g, '')];
    if (!kind) {
      yield { line, skipped: `event "${cell('event') ?? ''}" says nothing about the mailbox` };
      continue;
    }
    const bounceType = cell('bounceType');
    if (kind === 'hard_bounce' && bounceType && SOFT_TYPES.has(bounceType.toLowerCase()))
      kind = 'soft_bounce';
    const provider = cell('provider') ?? options.provider ?? 'csv';
    try {
      const event = checkFeedbackEvent({
        provider,
        eventId: cell('id') ?? contentId([cell('address'), kind, cell('at'), cell('diagnostic')]),
        address: cell('address'),
        kind,
        at: cell('at'),
        bounceType,
        diagnostic: cell('diagnostic'),
      });
      yield { line, event };
    } catch (error) {
      yield { line, error: (error as Error).message.replace(/^feedback event: /, '') };
    }
  }
  if (header === null) throw new TypeError('the CSV file is empty (it needs a header row)');
}

function columnIndex(header: readonly string[]): Partial<Record<keyof typeof COLUMNS, number>> {
  const index: Partial<Record<keyof typeof COLUMNS, number>> = {};
  for (const field of Object.keys(COLUMNS) as (keyof typeof COLUMNS)[]) {
    const found = header.findIndex((name) => (COLUMNS[field] as readonly string[]).includes(name));
    if (found !== -1) index[field] = found;
  }
  return index;
}

function contentId(parts: readonly (string | undefined)[]): string {
  return `row-${createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32)}`;
}
