/** Exit codes every `svc` command follows. */
export const EXIT = {
  /** The command did what was asked. */
  ok: 0,
  /** The command ran but failed (an upstream error, an invalid record, a failed check). */
  failure: 1,
  /** The command line itself was wrong: unknown command or flag, missing argument. */
  usage: 2,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
