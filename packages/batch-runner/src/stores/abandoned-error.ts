import type { JobRecord } from '../store.js';

/**
 * The error of a job that ends `failed` because the runner abandoned some of its records.
 * Shared by the stores so every backend reports the same text.
 */
export function abandonedJobError(
  abandoned: number,
  total: number,
  reason: string | null,
): JobRecord['error'] {
  return {
    code: 'processing_failed',
    message: `${abandoned} of ${total} records could not be processed${reason ? `: ${reason}` : ''}`,
  };
}
