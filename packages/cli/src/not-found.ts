import { ServiceError } from '@svc/core';

/**
 * A "not found" answer with the store it searched named (`no batch job "job_…" in
 * /home/u/.local/share/svc/batch.db`), so a wrong data dir shows at once; other errors as they are.
 */
export function namingStore(error: unknown, store: string): unknown {
  if (!ServiceError.is(error) || error.code !== 'not_found') return error;
  return new ServiceError('not_found', `${error.message} in ${store}`, { cause: error });
}
