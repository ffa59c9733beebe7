/** Every error code of the API (spec §7), with its HTTP status and meaning. Data, not code. */
export const ERROR_TABLE = {
  invalid_request: { status: 400, retryable: false, meaning: 'Malformed JSON or missing required field' },
  invalid_ip: { status: 400, retryable: false, meaning: 'Private or syntactically invalid IP address' },
  invalid_api_key: { status: 401, retryable: false, meaning: 'Missing, invalid or revoked API key' },
  quota_exceeded: { status: 402, retryable: false, meaning: 'Monthly call allowance used up' },
  endpoint_not_in_plan: { status: 403, retryable: false, meaning: 'Endpoint requires a higher plan' },
  not_found: { status: 404, retryable: false, meaning: 'Unknown resource, for example a batch id' },
  unprocessable: {
    status: 422,
    retryable: false,
    meaning: 'Record semantically invalid, for example no MX hints',
  },
  rate_limited: {
    status: 429,
    retryable: true,
    meaning: 'Too many requests; the Retry-After header gives seconds to wait',
  },
  internal_error: { status: 500, retryable: true, meaning: 'Server-side failure; safe to retry' },
  upstream_timeout: { status: 503, retryable: true, meaning: 'An upstream check did not respond in time' },
} as const satisfies Record<string, { status: number; retryable: boolean; meaning: string }>;

/** One of the spec's error codes. */
export type ErrorCode = keyof typeof ERROR_TABLE;

/** The codes in the spec's order, for iteration (docs, OpenAPI, tests). */
export const ERROR_CODES = Object.keys(ERROR_TABLE) as ErrorCode[];

/** True when `value` is one of the spec's error codes. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_TABLE, value);
}
