import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { commandOnPath, skipWithout } from '@svc/testkit';

const run = promisify(execFile);

/**
 * True when libmaxminddb's `mmdblookup` is not installed: the cross-checks against it are then
 * skipped with a message (or fail, under SVC_REQUIRE_EXTERNAL=1 as in CI), so the README's test
 * command passes on a machine with only Node and npm. Use with `it.skipIf(noMmdblookup)`.
 */
export const noMmdblookup = skipWithout({
  name: 'mmdblookup',
  available: commandOnPath('mmdblookup'),
  howToGet: 'apt-get install mmdb-bin (Debian/Ubuntu), brew install libmaxminddb (macOS)',
  what: "the cross-checks of @svc/mmdb-writer's files with libmaxminddb",
});

/**
 * libmaxminddb's view of a value: scalars as `"<text> <type>"` exactly as mmdblookup prints
 * them (e.g. `"100 <uint16>"`, `"\"a\" <utf8_string>"`, `"<bytes>"` for empty bytes), maps as
 * objects, arrays as arrays.
 */
export type Typed = string | Typed[] | { [key: string]: Typed };

/** Looks `ip` up with the real `mmdblookup` binary; null when the address has no data. */
export async function mmdblookup(file: string, ip: string): Promise<Typed | null> {
  try {
    const { stdout } = await run('mmdblookup', ['--file', file, '--ip', ip]);
    return parseMmdblookup(stdout);
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') {
      throw new Error(
        'mmdblookup is not installed; install the Debian package mmdb-bin (apt-get install mmdb-bin)',
      );
    }
    const stderr = (error as { stderr?: string }).stderr ?? '';
    if (stderr.includes('Could not find an entry')) return null;
    throw new Error(`mmdblookup --file ${file} --ip ${ip} failed: ${stderr.trim() || String(error)}`);
  }
}

/** `mmdblookup --verbose` metadata lines, e.g. `{ 'Node count': '25', 'Record size': '28 bits' }`. */
export async function mmdblookupMetadata(file: string, ip: string): Promise<Record<string, string>> {
  const { stdout } = await run('mmdblookup', ['--file', file, '--ip', ip, '--verbose']).catch(
    (error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }),
  );
  const fields: Record<string, string> = {};
  for (const line of stdout.split('\n')) {
    const match = /^ {4}([A-Z][A-Za-z ]+):\s*(.*)$/.exec(line);
    if (match) fields[match[1]!] = match[2]!.trim();
  }
  return fields;
}

/** Parses the value part of mmdblookup's output (strings must not contain newlines). */
export function parseMmdblookup(output: string): Typed {
  const lines = output
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  let pos = 0;
  const parseValue = (): Typed => {
    const line = lines[pos++];
    if (line === undefined) throw new Error('mmdblookup output ended early');
    if (line === '{') {
      const map: Record<string, Typed> = {};
      while (lines[pos] !== '}') {
        const key = /^"(.*)":$/.exec(lines[pos++] ?? '');
        if (!key) throw new Error(`Expected a map key, got ${JSON.stringify(lines[pos - 1])}`);
        map[key[1]!] = parseValue();
      }
      pos++;
      return map;
    }
    if (line === '[') {
      const array: Typed[] = [];
      while (lines[pos] !== ']') array.push(parseValue());
      pos++;
      return array;
    }
    if (!/(^| )<[a-z0-9_]+>$/.test(line))
      throw new Error(`Unexpected mmdblookup line ${JSON.stringify(line)}`);
    return line;
  };
  const value = parseValue();
  if (pos !== lines.length) throw new Error(`Trailing mmdblookup output: ${lines.slice(pos).join(' ')}`);
  return value;
}

/** A temporary directory for .mmdb files, removed by the returned cleanup. */
export function tempDir(): { dir: string; write(name: string, bytes: Uint8Array): string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'mmdb-writer-'));
  return {
    dir,
    write(name, bytes) {
      const file = join(dir, name);
      writeFileSync(file, bytes);
      return file;
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
