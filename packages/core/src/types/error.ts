import type { ErrorCode } from '../errors-table.js';

/** The body of every error response (spec §7). */
export interface ErrorBody {
  error: {
    code: ErrorCode;
    message: string;
    request_id: string;
  };
}
