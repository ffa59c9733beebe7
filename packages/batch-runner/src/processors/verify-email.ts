import type { Processor } from '../runner/processor.js';

/** The part of @svc/email-verifier's Verifier this processor needs (injected, not imported). */
export interface BulkVerifier {
  verifyMany(
    emails: readonly string[],
    options?: { probe_mailbox?: boolean; check_disposable?: boolean; fresh?: boolean },
    events?: { signal?: AbortSignal; cacheNamespace?: string },
  ): Promise<Array<{ state: string; reasons?: readonly string[] }>>;
}

/**
 * `verify_email`: a chunk goes through verifyMany, so its addresses are grouped by MX and share
 * SMTP sessions; one verifier serves every chunk, so its per-MX connection limits and its
 * catch-all answers hold across the whole job (and every job of this runner). Chunks are 1,000
 * records by default: a chunk of 250 spread over hundreds of domains gives each MX too few
 * recipients to fill a session. Counts are kept by `state`; a record left `unknown` because the
 * verifier's resolver was not trusted also counts in `dns_unavailable` (a server credits those
 * back: an answer that is not a verdict costs nothing).
 */
export function createVerifyEmailProcessor(
  verifier: BulkVerifier,
  options: {
    probe_mailbox?: boolean;
    check_disposable?: boolean;
    /** Skip the verifier's result cache (probe again, replace what it holds). @default false */
    fresh?: boolean;
    chunkSize?: number;
    /**
     * The verifier of sandbox jobs (a server's test keys): it must open no socket. Without it a
     * sandbox job's chunks fail (and the job ends `failed` saying why) rather than reach out.
     */
    sandbox?: BulkVerifier;
    /**
     * Let every job read and write one namespace of the verifier's result cache. Off, each
     * job's owning account has its own (a job without one uses the shared namespace `''`), so
     * one account is never served a result another account's job produced.
     * @default false
     */
    shareCacheAcrossAccounts?: boolean;
    /**
     * Adjusts a live chunk's results before they are stored, given the job's account (a server
     * applies the account's delivery history here). Not called for sandbox jobs.
     */
    refine?: <T extends { state: string; reasons?: readonly string[] }>(
      accountId: string | null,
      results: T[],
    ) => Promise<T[]>;
  } = {},
): Processor {
  const { chunkSize = 1000, sandbox, shareCacheAcrossAccounts = false, refine, ...checks } = options;
  return {
    type: 'verify_email',
    chunkSize,
    async process(records, { signal, sandbox: isSandbox, accountId = null }) {
      signal.throwIfAborted();
      if (isSandbox && !sandbox)
        throw new Error('this verify_email processor has no sandbox verifier for a sandbox job');
      const verified = await (isSandbox ? (sandbox as BulkVerifier) : verifier).verifyMany(
        records.map((record) => record.input),
        checks,
        // A cancelled job or a closing runner stops this chunk's SMTP sessions, not just waiting.
        { signal, cacheNamespace: shareCacheAcrossAccounts ? '' : (accountId ?? '') },
      );
      const results = refine && !isSandbox ? await refine(accountId, verified) : verified;
      signal.throwIfAborted();
      return records.map(({ index }, position) => {
        const result = results[position] as { state: string; reasons?: readonly string[] };
        const countKey = result.reasons?.includes('dns_unavailable')
          ? [result.state, 'dns_unavailable']
          : result.state;
        return { index, ok: true as const, result, countKey };
      });
    },
  };
}
