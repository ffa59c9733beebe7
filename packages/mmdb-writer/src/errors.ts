/** What went wrong, so callers can branch without parsing messages. */
export type MmdbWriterErrorCode =
  | 'invalid_option'
  | 'invalid_network'
  | 'ip_version_mismatch'
  | 'aliased_network'
  | 'invalid_value'
  | 'tree_too_large';

/**
 * The one error this package throws for bad input. It carries a stable `code`; the message
 * names the offending option, network or value path so the fix is obvious.
 */
export class MmdbWriterError extends Error {
  readonly code: MmdbWriterErrorCode;

  constructor(code: MmdbWriterErrorCode, message: string) {
    super(message);
    this.name = 'MmdbWriterError';
    this.code = code;
  }
}
