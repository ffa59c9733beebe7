import type { BatchJobType, CompanyProfile, Person } from '@svc/core';
import type { Processor, ProcessorOutcome, ProcessorRecord } from '../runner/processor.js';
import { createHostGate } from './host-gate.js';

/**
 * What a lookup answers: the match, or null and (optionally) why: the enricher's miss reason
 * (`no_match`, `not_found_on_site`, `site_unreachable`, `suppressed`, `all_adapters_failed`).
 */
export interface BatchEnrichAnswer<T> {
  match: T | null;
  miss?: string | null;
}

/**
 * The part of @svc/enricher's Enricher these processors need (injected, not imported; the real
 * one fits as is): a lookup resolving `{ match, miss }`, match null for no match, and rejecting
 * with an error carrying a `code` (a ServiceError: `invalid_request`) for a query it refuses.
 */
export interface BatchEnricher {
  enrichContact(
    query: { email: string },
    options: { signal: AbortSignal },
  ): Promise<BatchEnrichAnswer<Person>>;
  enrichCompany(
    query: { domain: string },
    options: { signal: AbortSignal },
  ): Promise<BatchEnrichAnswer<CompanyProfile>>;
}

/**
 * The miss that is no verdict: every source failed to answer (down, timed out, rate limited), so
 * nothing was looked at. Counted apart from `no_match`, and credited back (`JOB_TYPES`).
 */
export const NOTHING_REACHED = 'all_adapters_failed';

export interface EnrichProcessorOptions {
  /** Lookups in flight at once within a chunk. @default 8 */
  concurrency?: number;
  /**
   * Lookups in flight at once per company host across the whole job (and every job of this
   * processor): a job of 5,000 people at one company must not hit that company's website, or a
   * provider, 8 at a time. @default 1
   */
  perHostConcurrency?: number;
  /** @default the runner's chunkSize */
  chunkSize?: number;
  /**
   * The enricher of sandbox jobs (a server's test keys): it must make no outbound call. Without
   * it a sandbox job's chunks fail (and the job ends `failed` saying why) rather than reach out.
   */
  sandbox?: BatchEnricher;
}

/** The host a record's lookups will go to: the email's domain, or the company's host. */
export function hostOf(record: string): string {
  const value = record.trim().toLowerCase();
  const at = value.lastIndexOf('@');
  const host =
    at >= 0 ? value.slice(at + 1) : value.replace(/^[a-z][a-z0-9+.-]*:\/\//, '').split(/[/?#:]/)[0];
  return (host ?? '').replace(/^www\./, '');
}

type Lookup = (
  enricher: BatchEnricher,
  input: string,
  signal: AbortSignal,
) => Promise<BatchEnrichAnswer<object>>;

function createEnrichProcessor(
  type: Extract<BatchJobType, `enrich_${string}`>,
  key: 'person' | 'company',
  lookup: Lookup,
  enricher: BatchEnricher,
  options: EnrichProcessorOptions,
): Processor {
  const { concurrency = 8, perHostConcurrency = 1, chunkSize, sandbox } = options;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new TypeError(`${type} processor's concurrency must be a positive integer, got ${concurrency}`);
  }
  const gate = createHostGate(perHostConcurrency);

  const one = async (
    chosen: BatchEnricher,
    { index, input }: ProcessorRecord,
    signal: AbortSignal,
  ): Promise<ProcessorOutcome> => {
    try {
      const { match, miss } = await gate.run(hostOf(input), signal, () => lookup(chosen, input, signal));
      if (match !== null) return { index, ok: true, result: { [key]: match }, countKey: 'matched' };
      // A miss says why (as the API's X-Enrichment-Outcome does); one where nothing was reached
      // is no verdict and is counted apart, so it is not billed.
      return {
        index,
        ok: true,
        result: { [key]: null, ...(miss ? { outcome: miss } : {}) },
        countKey: miss === NOTHING_REACHED ? NOTHING_REACHED : 'no_match',
      };
    } catch (error) {
      // A cancelled job or a closing runner stops the chunk; the chunk is handed back, not failed.
      signal.throwIfAborted();
      const code = (error as { code?: unknown }).code;
      return {
        index,
        ok: false,
        error: {
          code: typeof code === 'string' ? code : 'internal_error',
          message: error instanceof Error ? error.message : String(error),
        },
      };
    }
  };

  return {
    type,
    ...(chunkSize !== undefined ? { chunkSize } : {}),
    async process(records, { signal, sandbox: isSandbox }) {
      signal.throwIfAborted();
      if (isSandbox && !sandbox)
        throw new Error(`this ${type} processor has no sandbox enricher for a sandbox job`);
      const chosen = isSandbox ? (sandbox as BatchEnricher) : enricher;
      const outcomes: ProcessorOutcome[] = new Array(records.length);
      let next = 0;
      const worker = async () => {
        while (next < records.length) {
          const position = next++;
          outcomes[position] = await one(chosen, records[position] as ProcessorRecord, signal);
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, records.length) }, worker));
      signal.throwIfAborted();
      return outcomes;
    },
  };
}

/**
 * `enrich_contact`: each record is an email address, enriched as `{ email }`. A match is an ok
 * result `{ person }` counted `matched`; no match is an ok result `{ person: null, outcome }`
 * (`outcome`: the enricher's miss reason, when it gives one) counted `no_match`, or counted
 * `all_adapters_failed` when no source could be reached (no verdict: a server credits those
 * back); a record the enricher refuses (not an address) is a per-record error with the
 * enricher's code (`invalid_request`). Lookups run `concurrency` at a time per chunk and at most
 * `perHostConcurrency` per company domain across the job.
 */
export function createEnrichContactProcessor(
  enricher: BatchEnricher,
  options: EnrichProcessorOptions = {},
): Processor {
  return createEnrichProcessor(
    'enrich_contact',
    'person',
    (chosen, input, signal) => chosen.enrichContact({ email: input.trim() }, { signal }),
    enricher,
    options,
  );
}

/**
 * `enrich_company`: each record is a domain (or any URL or host; the enricher reduces it to the
 * registrable domain). Results, counts and errors as for `enrich_contact`, with `{ company }`.
 */
export function createEnrichCompanyProcessor(
  enricher: BatchEnricher,
  options: EnrichProcessorOptions = {},
): Processor {
  return createEnrichProcessor(
    'enrich_company',
    'company',
    (chosen, input, signal) => chosen.enrichCompany({ domain: input.trim() }, { signal }),
    enricher,
    options,
  );
}
