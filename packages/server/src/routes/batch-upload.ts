import { ServiceError, splitCsvLine as splitCsvFields } from '@svc/core';

/** Header cells that name the record column of a CSV uploaded without `?column=` (as `svc batch run` reads files). */
const HEADER_NAMES = new Set(['email', 'emails', 'ip', 'ips', 'address', 'record', 'records', 'domain']);

/** One CSV line's fields, trimmed (people's files have spaces after commas). */
function splitCsvLine(line: string): string[] {
  return splitCsvFields(line).map((value) => value.trim());
}

/**
 * The records of an uploaded list (POST /v2/batch with `text/plain` or `text/csv`).
 *
 * - `text/plain`: one record per line; blank lines and `#` comments are skipped.
 * - `text/csv` with `column`: the first line is the header, and the records are that column's
 *   cells (the name matched case-insensitively); a row without the cell is an error naming it.
 * - `text/csv` without `column`: the first field of each line; a first line whose first field
 *   is a header name (`email`, `ip`, `address`, `record`, `domain`, …) is skipped.
 *
 * A byte-order mark and CRLF line ends are accepted. Errors are `invalid_request` naming the line.
 */
export function parseUploadedRecords(text: string, format: 'plain' | 'csv', column?: string): string[] {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const records: string[] = [];
  if (format === 'plain') {
    for (const raw of lines) {
      const line = raw.trim();
      if (line !== '' && !line.startsWith('#')) records.push(line);
    }
    return records;
  }
  const rows = lines
    .map((line, index) => ({ number: index + 1, line }))
    .filter(({ line }) => line.trim() !== '');
  if (column === undefined) {
    for (const [position, { line }] of rows.entries()) {
      const first = splitCsvLine(line)[0] ?? '';
      if (position === 0 && HEADER_NAMES.has(first.toLowerCase())) continue;
      if (first !== '') records.push(first);
    }
    return records;
  }
  const [header, ...body] = rows;
  if (!header) throw new ServiceError('invalid_request', 'the uploaded CSV is empty');
  const names = splitCsvLine(header.line);
  const wanted = column.trim().toLowerCase();
  const at = names.findIndex((name) => name.toLowerCase() === wanted);
  if (at < 0) {
    throw new ServiceError(
      'invalid_request',
      `column ${JSON.stringify(column)} is not in the CSV header (${names.map((name) => JSON.stringify(name)).join(', ')})`,
    );
  }
  for (const { number, line } of body) {
    const cell = splitCsvLine(line)[at];
    if (cell === undefined) {
      throw new ServiceError(
        'invalid_request',
        `line ${number} of the CSV has no ${JSON.stringify(names[at])} column (it has ${splitCsvLine(line).length} fields)`,
      );
    }
    if (cell !== '') records.push(cell);
  }
  return records;
}
