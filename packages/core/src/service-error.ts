import { ERROR_TABLE, type ErrorCode, isErrorCode } from './errors-table.js';
import type { ErrorBody } from './schemas/error.js';

// A registered symbol, so two copies of @svc/core in one process still recognise each other's errors.
const MARKER = Symbol.for('@svc/core/ServiceError');

/** Options of a ServiceError beyond its code and message. */
export interface ServiceErrorOptions {
  /** The underlying error, kept for logs; never sent to API clients. */
  cause?: unknown;
  /**
   * Whether the same call may succeed if repeated.
   * @default the code's value in ERROR_TABLE
   */
  retryable?: boolean;
  /** The request this error belongs to (`req_…`), when known. */
  requestId?: string;
  /** Seconds a client should wait before retrying (rate_limited); the server turns it into Retry-After. */
  retryAfterSeconds?: number;
}

/** The one error type every @svc package throws for failures a caller can act on. */
export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly retryable: boolean;
  requestId: string | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly [MARKER] = true;

  constructor(code: ErrorCode, message: string, options: ServiceErrorOptions = {}) {
    if (!isErrorCode(code)) throw new TypeError(`Unknown error code: ${JSON.stringify(code)}`);
    if (typeof message !== 'string' || message.length === 0) {
      throw new TypeError('A ServiceError needs a non-empty message');
    }
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ServiceError';
    this.code = code;
    this.status = ERROR_TABLE[code].status;
    this.retryable = options.retryable ?? ERROR_TABLE[code].retryable;
    this.requestId = options.requestId;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  /** True for any ServiceError, including one from another copy of this package. */
  static is(value: unknown): value is ServiceError {
    return typeof value === 'object' && value !== null && (value as { [MARKER]?: unknown })[MARKER] === true;
  }

  /** The spec's error body: `{ error: { code, message, request_id } }` and nothing else. */
  toBody(requestId: string | undefined = this.requestId): ErrorBody {
    if (requestId === undefined) throw new TypeError('toBody needs a request id (req_…)');
    return { error: { code: this.code, message: this.message, request_id: requestId } };
  }
}
