import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import type { CliIo } from '../io.js';

let testHome: string | undefined;

/**
 * A HOME of the test process's own (made on first use, removed at exit), so a command that falls
 * back to the default data dir (~/.local/share/svc) or an earlier one (~/.cache/svc) in a test
 * never reads or writes the real user's.
 */
function isolatedHome(): string {
  if (!testHome) {
    const home = mkdtempSync(join(tmpdir(), 'svc-cli-home-'));
    testHome = home;
    process.once('exit', () => rmSync(home, { recursive: true, force: true }));
  }
  return testHome;
}

/**
 * A CliIo whose output is collected into strings, for running main() in tests. Its env holds only
 * HOME, a temporary directory of the test process (never the real home).
 */
export function captureIo(stdinText = ''): CliIo & { out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  return {
    stdout,
    stderr,
    stdin: Readable.from([stdinText]),
    env: { HOME: isolatedHome() },
    cwd: process.cwd(),
    out: () => out,
    err: () => err,
  };
}
