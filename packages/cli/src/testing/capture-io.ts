import { PassThrough, Readable } from 'node:stream';
import type { CliIo } from '../io.js';

/** A CliIo whose output is collected into strings, for running main() in tests. */
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
    env: {},
    cwd: process.cwd(),
    out: () => out,
    err: () => err,
  };
}
