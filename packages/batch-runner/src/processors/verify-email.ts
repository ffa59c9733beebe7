import type { Processor } from '../runner/processor.js';

/** The part of @svc/email-verifier's Verifier this processor needs (injected, not imported). */
export interface BulkVerifier {
  verifyMany(
    emails: readonly string[],
    options?: { probe_mailbox?: boolean; check_disposable?: boolean },
  ): Promise<Array<{ state: string }>>;
}

/**
 * `verify_email`: a chunk goes through verifyMany, so its addresses are grouped by domain and
 * share SMTP sessions; one verifier serves every chunk, so its per-MX connection limits hold
 * across the whole job (and every job of this runner). Counts are kept by `state`.
 */
export function createVerifyEmailProcessor(
  verifier: BulkVerifier,
  options: { probe_mailbox?: boolean; check_disposable?: boolean } = {},
): Processor {
  return {
    type: 'verify_email',
    async process(records, { signal }) {
      signal.throwIfAborted();
      const results = await verifier.verifyMany(
        records.map((record) => record.input),
        options,
      );
      signal.throwIfAborted();
      return records.map(({ index }, position) => {
        const result = results[position] as { state: string };
        return { index, ok: true as const, result, countKey: result.state };
      });
    },
  };
}
