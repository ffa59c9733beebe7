import { csvField, flatten } from '@svc/core';
import type { JobRecord, RecordResult, Store } from '../store.js';

/** Lines of an NDJSON or CSV export of a job's results, read page by page from the store. */
export async function* exportLines(
  store: Store,
  job: JobRecord,
  format: 'ndjson' | 'csv',
): AsyncGenerator<string> {
  let cursor: string | null = null;
  let columns: string[] | undefined;
  do {
    const page = await store.results(job.id, { cursor, limit: 1000 });
    const rows = format === 'csv' ? page.data.map(flattenResult) : [];
    if (format === 'csv' && !columns) {
      // The header is the union of the first page's columns, so a failed first record does not
      // hide the result columns; results of one job type share their shape.
      columns = [
        ...new Set(['index', 'input', 'ok', 'error_code', 'error_message', ...rows.flatMap(Object.keys)]),
      ];
      yield `${columns.map(csvField).join(',')}\n`;
    }
    for (const [position, result] of page.data.entries()) {
      if (format === 'ndjson') {
        const { countKey: _key, ...visible } = result;
        yield `${JSON.stringify(visible)}\n`;
        continue;
      }
      const row = rows[position] as Record<string, string>;
      yield `${(columns as string[]).map((column) => csvField(row[column] ?? '')).join(',')}\n`;
    }
    cursor = page.next_cursor;
  } while (cursor);
}

function flattenResult(result: RecordResult): Record<string, string> {
  const row: Record<string, string> = {
    index: String(result.index),
    input: result.input,
    ok: String(result.ok),
    error_code: result.error?.code ?? '',
    error_message: result.error?.message ?? '',
  };
  const value = result.result;
  if (value !== null && typeof value === 'object' && !Array.isArray(value))
    flatten(value as Record<string, unknown>, 'result', row);
  else if (value !== undefined) row.result = flatten({ result: value }).result ?? '';
  return row;
}
