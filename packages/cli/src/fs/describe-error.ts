import { ServiceError } from '@svc/core';

// Words for the errno codes a user can act on; the code stays in brackets for searching.
const CAUSES: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'is a directory',
  ENOTDIR: 'a folder on the path is a file',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EEXIST: 'already exists',
  EMFILE: 'too many open files',
  ENAMETOOLONG: 'the name is too long',
  ELOOP: 'too many symbolic links',
};

/** The errno code of a Node system error, if it is one. */
export function errnoCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code) ? code : undefined;
}

/** "permission denied (EACCES)" for a system error; the message for anything else. */
export function describeCause(error: unknown): string {
  const code = errnoCode(error);
  if (code && CAUSES[code]) return `${CAUSES[code]} (${code})`;
  return error instanceof Error ? error.message : String(error);
}

/** A failure about one file, naming it and the real cause: `cannot read ips.txt: permission denied (EACCES)`. */
export function fileError(action: string, path: string, cause: unknown): ServiceError {
  return new ServiceError('invalid_request', `cannot ${action} ${path}: ${describeCause(cause)}`, { cause });
}
