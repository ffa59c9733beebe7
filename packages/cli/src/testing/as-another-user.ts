/**
 * Runs `fn` as a user other than the files' owner, so permission errors are real: tests create
 * files as themselves, and root ignores file modes. As root, the effective uid/gid switch to
 * nobody (65534) for the call (vitest runs each file in its own process, so nothing else in
 * this process runs meanwhile); as anyone else, the files' modes already apply.
 */
export async function asAnotherUser<T>(fn: () => Promise<T>): Promise<T> {
  if (process.geteuid?.() !== 0 || !process.seteuid || !process.setegid) return fn();
  process.setegid(65534);
  process.seteuid(65534);
  try {
    return await fn();
  } finally {
    process.seteuid(0);
    process.setegid(0);
  }
}
