import { domainOf, type FeedbackKind } from '../event.js';
import { type AddressSummary, addressOutcome, foldEvent, type RecordedFeedbackEvent } from '../summary.js';
import { countPatterns } from './count-patterns.js';
import { checkRecordSize, type FeedbackScope, type FeedbackStore, feedbackStats } from './store.js';

/** Options of createMemoryFeedbackStore. */
export interface MemoryFeedbackStoreOptions {
  /** Most events kept over all accounts; the oldest go first. @default 1000000 */
  maxEvents?: number;
}

/** A feedback store in this process's memory: for tests and single-process use. Keeps nothing on exit. */
export function createMemoryFeedbackStore(options: MemoryFeedbackStoreOptions = {}): FeedbackStore {
  const maxEvents = options.maxEvents ?? 1_000_000;
  if (!Number.isInteger(maxEvents) || maxEvents < 1)
    throw new RangeError('maxEvents must be a positive integer');
  // Insertion order is arrival order: the first entries are evicted first.
  const events = new Map<string, { account: string; event: RecordedFeedbackEvent }>();
  // Ids by domain, so a lookup reads one domain's events rather than all of them.
  const byDomain = new Map<string, Set<string>>();
  const index = (id: string, address: string) => {
    const domain = domainOf(address);
    const ids = byDomain.get(domain) ?? new Set<string>();
    ids.add(id);
    byDomain.set(domain, ids);
  };
  const remove = (id: string) => {
    const entry = events.get(id);
    if (!entry) return;
    events.delete(id);
    const ids = byDomain.get(domainOf(entry.event.address));
    ids?.delete(id);
    if (ids?.size === 0) byDomain.delete(domainOf(entry.event.address));
  };
  /** Removes every event `match` picks; returns how many. */
  const removeWhere = (match: (entry: { account: string; event: RecordedFeedbackEvent }) => boolean) => {
    let removed = 0;
    for (const [id, entry] of events) {
      if (match(entry)) {
        remove(id);
        removed += 1;
      }
    }
    return removed;
  };
  const changes: { account: string; change: 'upgraded' | 'downgraded'; at: string }[] = [];
  const credentials = new Map<string, { sealed: string; at: string }>();
  const providerKey = (account: string, provider: string) => JSON.stringify([account, provider]);
  const key = (account: string, provider: string, eventId: string) =>
    JSON.stringify([account, provider, eventId]);
  const inScope = (scope: FeedbackScope, account: string) => scope === 'shared' || scope.account === account;

  function summariesAt(
    scope: FeedbackScope,
    domain: string | null,
    filter: (address: string) => boolean,
  ): Map<string, AddressSummary> {
    const byAddress = new Map<string, AddressSummary>();
    const ids = domain === null ? events.keys() : (byDomain.get(domain) ?? new Set<string>()).values();
    for (const id of ids) {
      const { account, event } = events.get(id) as { account: string; event: RecordedFeedbackEvent };
      if (!inScope(scope, account) || !filter(event.address)) continue;
      byAddress.set(event.address, foldEvent(byAddress.get(event.address) ?? null, event));
    }
    return byAddress;
  }

  return {
    async record(account, batch) {
      checkRecordSize(batch);
      let stored = 0;
      for (const event of batch) {
        const id = key(account, event.provider, event.eventId);
        if (events.has(id)) continue;
        events.set(id, { account, event });
        index(id, event.address);
        stored += 1;
        if (events.size > maxEvents) remove(events.keys().next().value as string);
      }
      return { stored, duplicates: batch.length - stored };
    },
    async summary(scope, address) {
      return summariesAt(scope, domainOf(address), (a) => a === address).get(address) ?? null;
    },
    async summaries(scope, addresses) {
      checkRecordSize(addresses, 'summaries reads', 'addresses');
      const found = new Map<string, AddressSummary>();
      for (const address of new Set(addresses)) {
        const summary = summariesAt(scope, domainOf(address), (a) => a === address).get(address);
        if (summary) found.set(address, summary);
      }
      return found;
    },
    async patterns(scope, domain) {
      return countPatterns(summariesAt(scope, domain, () => true).values());
    },
    async noteVerdictChange(account, change, at) {
      changes.push({ account, change, at });
      if (changes.length > maxEvents) changes.shift();
    },
    async stats(account, since, limit = 20) {
      const kinds: { provider: string; kind: FeedbackKind; n: number }[] = [];
      for (const { account: owner, event } of events.values()) {
        if (owner === account && event.at >= since)
          kinds.push({ provider: event.provider, kind: event.kind, n: 1 });
      }
      const domains = new Map<string, { delivered: number; bounced: number }>();
      for (const summary of summariesAt({ account }, null, () => true).values()) {
        if (summary.lastEventAt < since) continue;
        const outcome = addressOutcome(summary);
        if (outcome === null) continue;
        const domain = domainOf(summary.address);
        const count = domains.get(domain) ?? { delivered: 0, bounced: 0 };
        count[outcome] += 1;
        domains.set(domain, count);
      }
      const ranked = [...domains]
        .map(([domain, c]) => ({ domain, ...c }))
        .sort(
          (a, b) => b.delivered + b.bounced - (a.delivered + a.bounced) || a.domain.localeCompare(b.domain),
        )
        .slice(0, limit);
      const verdicts = changes
        .filter((change) => change.account === account && change.at >= since)
        .map(({ change }) => ({ change, n: 1 }));
      return feedbackStats(since, kinds, ranked, verdicts);
    },
    async setProvider(account, provider, sealed, at) {
      credentials.set(providerKey(account, provider), { sealed, at });
    },
    async providerCredentials(account, provider) {
      return credentials.get(providerKey(account, provider))?.sealed ?? null;
    },
    async providers(account) {
      const out: { provider: string; configuredAt: string }[] = [];
      for (const [key, { at }] of credentials) {
        const [owner, provider] = JSON.parse(key) as [string, string];
        if (owner === account) out.push({ provider, configuredAt: at });
      }
      return out.sort((a, b) => a.provider.localeCompare(b.provider));
    },
    async removeProvider(account, provider) {
      return credentials.delete(providerKey(account, provider));
    },
    async erase(account, address) {
      return removeWhere((entry) => entry.account === account && entry.event.address === address);
    },
    async eraseEverywhere(address) {
      return removeWhere((entry) => entry.event.address === address);
    },
    async prune(before) {
      const removed = removeWhere((entry) => entry.event.at < before);
      for (let i = changes.length - 1; i >= 0; i -= 1)
        if ((changes[i] as { at: string }).at < before) changes.splice(i, 1);
      return removed;
    },
    async close() {
      events.clear();
      byDomain.clear();
    },
  };
}
