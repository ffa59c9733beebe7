import { checkDomainName } from '../syntax/domain-name.js';

/** One published disposable-domain list, as the agreement rule reads it. */
export interface DisposableSourceList {
  /** The npm package it ships in. */
  package: string;
  version: string;
  /** SPDX licence of the data. */
  license: string;
  /**
   * `curated`: reviewed entry by entry, kept whole; `voter`: counted towards agreement, an entry
   * is kept only when at least MIN_AGREEING_VOTERS voters have it.
   */
  role: 'curated' | 'voter';
  domains: Iterable<string>;
}

/** How many independent voter lists must hold a domain for it to count as disposable. */
export const MIN_AGREEING_VOTERS = 2;

/** What combineDisposableLists kept and why, for the data file's header and the README. */
export interface CombinedDisposableList {
  /** Lowercase valid domain names, sorted. */
  entries: string[];
  /** Per source: entries read, entries invalid (not a domain name), entries kept. */
  counts: Array<{ package: string; read: number; invalid: number; kept: number }>;
  /** Entries the rule would keep that the never-disposable list removed, sorted. */
  vetoed: string[];
}

/**
 * The agreement rule: a domain is disposable when the curated list has it, or when at least
 * MIN_AGREEING_VOTERS of the voter lists have it; and never when `never` has it (mail providers,
 * privacy relays that forward to a real inbox). Entries are trimmed and lowercased; an entry
 * that is not a valid domain name of two labels or more is dropped and counted.
 */
export function combineDisposableLists(
  sources: readonly DisposableSourceList[],
  never: ReadonlySet<string>,
): CombinedDisposableList {
  const votes = new Map<string, number>();
  const curated = new Set<string>();
  const perSource = sources.map((source) => {
    const valid = new Set<string>();
    let read = 0;
    let invalid = 0;
    for (const raw of source.domains) {
      read++;
      const domain = raw.trim().toLowerCase();
      if (!domain.includes('.') || checkDomainName(domain) !== null) invalid++;
      else valid.add(domain);
    }
    for (const domain of valid) {
      if (source.role === 'curated') curated.add(domain);
      else votes.set(domain, (votes.get(domain) ?? 0) + 1);
    }
    return { source, read, invalid, valid };
  });
  const kept = new Set(curated);
  for (const [domain, count] of votes) if (count >= MIN_AGREEING_VOTERS) kept.add(domain);
  const vetoed = [...kept].filter((domain) => never.has(domain)).sort();
  for (const domain of vetoed) kept.delete(domain);
  return {
    entries: [...kept].sort(),
    counts: perSource.map(({ source, read, invalid, valid }) => ({
      package: source.package,
      read,
      invalid,
      kept: [...valid].filter((domain) => kept.has(domain)).length,
    })),
    vetoed,
  };
}
