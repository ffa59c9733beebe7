import { extname, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { csvField, flatten, openPrivateFileForWriting } from '@svc/core';
import { checkWritableFile } from '../fs/check-paths.js';
import { fileError } from '../fs/describe-error.js';
import { UsageError } from '../usage-error.js';

/** An --out file whose path was checked before any work. */
export interface OutputTarget {
  /** As the user wrote it, for messages. */
  shown: string;
  full: string;
  format: 'ndjson' | 'csv';
}

/**
 * Checks `--out` before any work: the extension picks the format (.ndjson/.jsonl or .csv), and
 * the file must be creatable or overwritable (its folder exists and is writable).
 */
export async function prepareOutput(path: string, cwd: string, command: string): Promise<OutputTarget> {
  const extension = extname(path).toLowerCase();
  if (!['.ndjson', '.jsonl', '.csv'].includes(extension)) {
    throw new UsageError(`--out must end in .ndjson, .jsonl or .csv, got "${path}"`, command);
  }
  const full = resolve(cwd, path);
  await checkWritableFile(full, path);
  return { shown: path, full, format: extension === '.csv' ? 'csv' : 'ndjson' };
}

/** Creates (or truncates) a result file readable by its owner only, whatever the umask: results hold people's addresses. */
export async function createPrivateFile(target: OutputTarget): Promise<Writable> {
  try {
    return (await openPrivateFileForWriting(target.full)).createWriteStream();
  } catch (error) {
    throw fileError('write', target.shown, error);
  }
}

/** Copies a stream of result lines into a private result file. */
export async function writeResultFile(target: OutputTarget, lines: NodeJS.ReadableStream): Promise<void> {
  const stream = await createPrivateFile(target);
  try {
    await pipeline(lines, stream);
  } catch (error) {
    throw fileError('write', target.shown, error);
  }
}

/** Writes results to an .ndjson or .csv file as they come. */
export interface ResultWriter {
  write(result: Record<string, unknown>): void;
  close(): Promise<void>;
}

/**
 * Opens a checked `--out` target. CSV rows are flattened by core's `flatten` (the batch export's
 * too); the header is fixed by the first row that has more than the `leading` columns (rows with
 * only those, e.g. errors, wait for it), so a failed first record does not hide the result columns.
 */
export async function openResultWriter(
  target: OutputTarget,
  options: { leading?: string[] } = {},
): Promise<ResultWriter> {
  const stream = await createPrivateFile(target);
  let failure: unknown;
  stream.on('error', (error) => {
    failure ??= error;
  });
  const leading = options.leading ?? [];
  let columns: string[] | undefined;
  let waiting: Record<string, string>[] = [];
  const writeRow = (row: Record<string, string>) =>
    stream.write(`${(columns as string[]).map((column) => csvField(row[column] ?? '')).join(',')}\n`);
  const fixColumns = (rows: Record<string, string>[]) => {
    columns = withoutEmptyParents([...new Set([...leading, ...rows.flatMap(Object.keys)])]);
    stream.write(`${columns.map(csvField).join(',')}\n`);
    for (const row of rows) writeRow(row);
    waiting = [];
  };
  return {
    write(result) {
      if (target.format === 'ndjson') {
        stream.write(`${JSON.stringify(result)}\n`);
        return;
      }
      const row = flatten(result);
      if (columns) writeRow(row);
      else if (Object.keys(row).some((column) => !leading.includes(column))) fixColumns([...waiting, row]);
      else waiting.push(row);
    },
    async close() {
      if (target.format === 'csv' && !columns) fixColumns(waiting);
      stream.end();
      await finished(stream).catch((error: unknown) => {
        failure ??= error;
      });
      if (failure) throw fileError('write', target.shown, failure);
    },
  };
}

/** Every CSV column of `results` (core's flatten), for a header that fits them all. */
export function csvColumns(results: readonly Record<string, unknown>[]): string[] {
  return withoutEmptyParents([...new Set(results.flatMap((result) => Object.keys(flatten(result))))]);
}

// A field null in one result and an object in another (`smtp`) flattens to `smtp` and to
// `smtp.code`…; the bare column would only ever be empty.
function withoutEmptyParents(columns: string[]): string[] {
  return columns.filter((column) => !columns.some((other) => other.startsWith(`${column}.`)));
}
