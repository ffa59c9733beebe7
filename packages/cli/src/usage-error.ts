/** A mistake in the command line; main() prints it with the usage text and exits 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    /** The command whose usage to print, or undefined for the global usage. */
    readonly command?: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}
