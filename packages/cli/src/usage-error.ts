/** A mistake in the command line; main() prints it with the usage text and exits 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    /** The command whose usage to print, or undefined for the global usage. */
    readonly command?: string,
    /**
     * Print the usage text after the message: a mistake in the command line's form needs it;
     * a well-formed request refused for its content (a list over the limit) does not.
     */
    readonly showUsage = true,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}
