import type { EmailVerificationResult } from '@svc/core';
import { applyHistory, type HistoryField, type HistoryPolicy } from './apply-history.js';
import { domainOf, normaliseFeedbackAddress } from './event.js';
import type { PatternCount } from './pattern.js';
import type { FeedbackScope, FeedbackStore } from './stores/store.js';

/** Options of createDeliveryHistory. */
export interface DeliveryHistoryOptions {
  store: FeedbackStore;
  /**
   * Read every account's events, not only the caller's (an operator whose accounts send for one
   * organisation). Off by default: one account's sends are its own business.
   * @default false
   */
  shared?: boolean;
  policy?: HistoryPolicy;
  /** @default () => new Date() */
  clock?: () => Date;
}

/** What verification results look like once history has been applied. */
export type WithHistory<T extends EmailVerificationResult> = T & { history: HistoryField | null };

/** Applies recorded delivery history to verification results (`applyHistory`'s table). */
export interface DeliveryHistory {
  apply<T extends EmailVerificationResult>(account: string, result: T): Promise<WithHistory<T>>;
  /** The same for many results, reading each domain's patterns once. */
  applyMany<T extends EmailVerificationResult>(
    account: string,
    results: readonly T[],
  ): Promise<WithHistory<T>[]>;
}

/**
 * Looks up each result's address in the feedback store and applies its history; verdicts that
 * history changed are counted in the store's statistics. The result cache keeps probe results
 * only: history is applied when a result is served, so a bounce recorded a minute ago counts now.
 */
export function createDeliveryHistory(options: DeliveryHistoryOptions): DeliveryHistory {
  const clock = options.clock ?? (() => new Date());
  const scopeOf = (account: string): FeedbackScope => (options.shared ? 'shared' : { account });

  /** Applies the histories of `results` read in one `summaries` call, each catch-all domain's patterns once. */
  async function applyAll<T extends EmailVerificationResult>(
    account: string,
    results: readonly T[],
  ): Promise<WithHistory<T>[]> {
    const scope = scopeOf(account);
    const addresses = results.map((result) => normaliseFeedbackAddress(result.normalized ?? result.email));
    const summaries = await options.store.summaries(
      scope,
      addresses.filter((address): address is string => address !== null),
    );
    const patternsByDomain = new Map<string, PatternCount[]>();
    for (const [index, result] of results.entries()) {
      const address = addresses[index];
      if (!result.is_catch_all || !address) continue;
      const domain = domainOf(address);
      if (!patternsByDomain.has(domain))
        patternsByDomain.set(domain, await options.store.patterns(scope, domain));
    }
    const now = clock();
    const out: WithHistory<T>[] = [];
    for (const [index, result] of results.entries()) {
      const address = addresses[index];
      if (!address) {
        out.push({ ...result, history: null });
        continue;
      }
      const patterns = result.is_catch_all ? patternsByDomain.get(domainOf(address)) : undefined;
      const summary = summaries.get(address) ?? null;
      const applied = applyHistory(
        result,
        { summary, ...(patterns && { patterns }), scope: options.shared ? 'shared' : 'account' },
        now,
        options.policy,
      );
      if (applied.change) await options.store.noteVerdictChange(account, applied.change, now.toISOString());
      out.push(applied.result as WithHistory<T>);
    }
    return out;
  }

  return {
    async apply(account, result) {
      return (await applyAll(account, [result]))[0] as WithHistory<typeof result>;
    },
    applyMany: applyAll,
  };
}
