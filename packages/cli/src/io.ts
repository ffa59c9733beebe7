import type { Readable, Writable } from 'node:stream';

/** The streams and environment a command runs with; tests pass their own. */
export interface CliIo {
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable & { isTTY?: boolean; columns?: number };
  stdin: Readable;
  env: Record<string, string | undefined>;
  /** Working directory that relative paths are resolved against. */
  cwd: string;
  /** The clock of batch runs and webhook deliveries (when an attempt is due); tests move it on. @default Date.now */
  now?: () => number;
}

/** The process's own streams. */
export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
  };
}
