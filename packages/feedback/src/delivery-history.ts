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

  async function one<T extends EmailVerificationResult>(
    account: string,
    result: T,
    patternsOf: (domain: string) => Promise<PatternCount[]>,
  ): Promise<WithHistory<T>> {
    const address = normaliseFeedbackAddress(result.normalized ?? result.email);
    if (address === null) return { ...result, history: null };
    const scope = scopeOf(account);
    const summary = await options.store.summary(scope, address);
    const patterns = result.is_catch_all ? await patternsOf(domainOf(address)) : undefined;
    const now = clock();
    const applied = applyHistory(
      result,
      { summary, ...(patterns && { patterns }), scope: options.shared ? 'shared' : 'account' },
      now,
      options.policy,
    );
    if (applied.change) await options.store.noteVerdictChange(account, applied.change, now.toISOString());
    return applied.result as WithHistory<T>;
  }

  return {
    apply(account, result) {
      return one(account, result, (domain) => options.store.patterns(scopeOf(account), domain));
    },
    async applyMany(account, results) {
      const byDomain = new Map<string, Promise<PatternCount[]>>();
      const patternsOf = (domain: string) => {
        let found = byDomain.get(domain);
        if (!found) {
          found = options.store.patterns(scopeOf(account), domain);
          byDomain.set(domain, found);
        }
        return found;
      };
      const out: WithHistory<(typeof results)[number]>[] = [];
      for (const result of results) out.push(await one(account, result, patternsOf));
      return out;
    },
  };
}
