import { ServiceError } from '@svc/core';
import type { GlobalFlags } from './command.js';
import type { CliIo } from './io.js';

/** Writes one JSON document followed by a newline on stdout. */
export function printJson(io: CliIo, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/**
 * Reports a failure on stderr: `svc: <message>` for people, or with --json the same error shape
 * as the API (`{"error":{"code","message"}}`), so scripts parse one format everywhere.
 */
export function printError(io: CliIo, flags: GlobalFlags, error: unknown): void {
  const code = ServiceError.is(error) ? error.code : 'internal_error';
  const message = error instanceof Error ? error.message : String(error);
  if (flags.json) io.stderr.write(`${JSON.stringify({ error: { code, message } })}\n`);
  else io.stderr.write(`svc: ${message}\n`);
}
