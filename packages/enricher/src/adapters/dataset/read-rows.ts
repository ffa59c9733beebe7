import { createReadStream, type ReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { flatten } from '@svc/core';
import { parse } from 'csv-parse';

/** One row of a dataset file: its first line (1-based) and its values by column. */
export interface SourceRow {
  line: number;
  values: Record<string, string>;
}

/** A malformed file: the message names the line. */
export class FileFormatError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * CSV rows (RFC 4180 via csv-parse: quoted fields may hold commas and line breaks; a BOM is
 * skipped). The first line is the header; every row must have its number of fields.
 */
export async function* readCsv(path: string): AsyncGenerator<SourceRow> {
  const parser = parse({ columns: true, bom: true, skip_empty_lines: true, info: true, raw: true });
  // pipe() does not pass a read error on; without this the loop would wait forever.
  const input = (await opened(createReadStream(path))).on('error', (error) => parser.destroy(error));
  input.pipe(parser);
  try {
    for await (const item of parser as AsyncIterable<{
      record: Record<string, string>;
      info: { lines: number };
      raw: string;
    }>) {
      // csv-parse counts the line a record ends on; a quoted line break moves the start back.
      const inner = item.raw.replace(/^[\r\n]+/, '').replace(/\r?\n$/, '');
      const line = item.info.lines - (inner.match(/\n/g)?.length ?? 0);
      yield { line, values: item.record };
    }
  } catch (error) {
    const { lines, message } = error as { lines?: number; message: string };
    if (typeof lines === 'number') throw new FileFormatError(lines, message.replace(/ on line \d+$/, ''));
    throw error;
  } finally {
    parser.destroy();
  }
}

/**
 * JSON Lines rows: one object per line (blank lines skipped); nested objects read as dotted
 * columns and arrays as `;`-joined text, the shape our own CSV exports use.
 */
export async function* readJsonl(path: string): AsyncGenerator<SourceRow> {
  const input = await opened(createReadStream(path, 'utf8'));
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let line = 0;
  try {
    for await (const raw of lines) {
      line++;
      const text = (line === 1 ? raw.replace(/^\uFEFF/, '') : raw).trim();
      if (text === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        throw new FileFormatError(line, `not JSON (${(error as Error).message})`);
      }
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw new FileFormatError(line, 'each line must be one JSON object');
      }
      yield { line, values: flatten(value as Record<string, unknown>) };
    }
  } finally {
    lines.close();
  }
}

/** The stream once its file is open, or the open error (ENOENT, EISDIR…) as a rejection. */
function opened(stream: ReadStream): Promise<ReadStream> {
  return new Promise((resolve, reject) => {
    stream.once('ready', () => resolve(stream));
    stream.once('error', reject);
  });
}
