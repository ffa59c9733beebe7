import { UsageError } from './usage-error.js';

/**
 * `url` when it is a postgres:// or postgresql:// URL; otherwise a UsageError saying that `what`
 * (the flag or variable it came from) must be one, with the usage of `command`.
 */
export function checkedPostgresUrl(url: string, what: string, command?: string): string {
  let protocol: string | undefined;
  try {
    protocol = new URL(url).protocol;
  } catch {}
  if (protocol !== 'postgres:' && protocol !== 'postgresql:') {
    throw new UsageError(
      `${what} must be a URL such as postgres://user:password@host:5432/database`,
      command,
    );
  }
  return url;
}
