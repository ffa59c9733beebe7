import { createWriteStream, type WriteStream } from 'node:fs';
import { extname, resolve } from 'node:path';
import { csvField, flatten } from '@svc/core';
import { UsageError } from '../usage-error.js';

/** Writes results to an .ndjson or .csv file as they come. */
export interface ResultWriter {
  write(result: Record<string, unknown>): void;
  close(): Promise<void>;
}

/** Opens `--out` for writing; the format follows the extension (.ndjson/.jsonl or .csv). */
export function openResultWriter(path: string, cwd: string, command: string): ResultWriter {
  const extension = extname(path).toLowerCase();
  if (!['.ndjson', '.jsonl', '.csv'].includes(extension)) {
    throw new UsageError(`--out must end in .ndjson, .jsonl or .csv, got "${path}"`, command);
  }
  const stream: WriteStream = createWriteStream(resolve(cwd, path));
  let columns: string[] | undefined;
  return {
    write(result) {
      if (extension !== '.csv') {
        stream.write(`${JSON.stringify(result)}\n`);
        return;
      }
      const row = flatten(result);
      // The first result fixes the columns; every result has the same shape.
      if (!columns) {
        columns = Object.keys(row);
        stream.write(`${columns.map(csvField).join(',')}\n`);
      }
      stream.write(`${columns.map((column) => csvField(row[column] ?? '')).join(',')}\n`);
    },
    close: () =>
      new Promise((resolveClose, reject) => {
        stream.once('error', reject);
        stream.end(resolveClose);
      }),
  };
}
