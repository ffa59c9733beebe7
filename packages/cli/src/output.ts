import { ServiceError } from '@svc/core';
import type { GlobalFlags } from './command.js';
import { describeCause, errnoCode } from './fs/describe-error.js';
import type { CliIo } from './io.js';
import { UsageError } from './usage-error.js';

/** Writes one JSON document followed by a newline on stdout. */
export function printJson(io: CliIo, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/**
 * Reports a failure on stderr: `svc: <message>` for people, or with --json the same error shape
 * as the API (`{"error":{"code","message"}}`), so scripts parse one format everywhere.
 */
export function printError(io: CliIo, flags: GlobalFlags, error: unknown): void {
  const code = ServiceError.is(error)
    ? error.code
    : error instanceof UsageError
      ? 'invalid_request'
      : 'internal_error';
  const message = describeError(error);
  if (flags.json) io.stderr.write(`${JSON.stringify({ error: { code, message } })}\n`);
  else io.stderr.write(`svc: ${message}\n`);
}

const VERBS: Record<string, string> = {
  mkdir: 'create the folder',
  open: 'open',
  read: 'read',
  write: 'write',
  rename: 'replace',
  unlink: 'remove',
  scandir: 'list the folder',
  stat: 'find',
  copyfile: 'copy',
};

/**
 * The message of an error; a raw Node system error that escaped (from a package's file access,
 * e.g. the data dir) is told as "cannot create the folder <path>: permission denied (EACCES)".
 */
function describeError(error: unknown): string {
  const { path, syscall } = (error ?? {}) as { path?: unknown; syscall?: unknown };
  if (!ServiceError.is(error) && errnoCode(error) && typeof path === 'string') {
    const verb = (typeof syscall === 'string' && VERBS[syscall]) || 'use';
    return `cannot ${verb} ${path}: ${describeCause(error)}`;
  }
  return error instanceof Error ? error.message : String(error);
}
