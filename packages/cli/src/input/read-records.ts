import { createReadStream } from 'node:fs';
import { extname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { checkReadableFile } from '../fs/check-paths.js';
import { fileError } from '../fs/describe-error.js';

const HEADER_NAMES = new Set(['email', 'emails', 'ip', 'ips', 'address', 'record', 'records', 'domain']);

/**
 * Reads records from a text file (one per line; blank lines and `#` comments skipped) or a CSV
 * file (the first column; a header row named like `email` or `ip` is skipped).
 */
export async function readRecords(path: string, cwd: string): Promise<string[]> {
  const full = resolve(cwd, path);
  await checkReadableFile(full, path);
  const csv = extname(full).toLowerCase() === '.csv';
  const records: string[] = [];
  const lines = createInterface({
    input: createReadStream(full, 'utf8'),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  let first = true;
  try {
    for await (const raw of lines) {
      const line = (first ? raw.replace(/^\uFEFF/, '') : raw).trim();
      if (line === '' || line.startsWith('#')) continue;
      const value = csv ? firstCsvField(line) : line;
      if (first && csv && HEADER_NAMES.has(value.toLowerCase())) {
        first = false;
        continue;
      }
      first = false;
      records.push(value);
    }
  } catch (error) {
    throw fileError('read', path, error);
  }
  return records;
}

function firstCsvField(line: string): string {
  if (!line.startsWith('"')) return (line.split(',')[0] ?? '').trim();
  let value = '';
  for (let index = 1; index < line.length; index++) {
    const char = line[index];
    if (char === '"' && line[index + 1] === '"') {
      value += '"';
      index++;
    } else if (char === '"') break;
    else value += char;
  }
  return value;
}
