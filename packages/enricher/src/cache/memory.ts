import {
  type CacheEntry,
  type CacheOptions,
  cappedExpiry,
  checkRetention,
  type EnrichmentCache,
} from './types.js';

export interface MemoryCacheOptions extends CacheOptions {
  /** Most entries kept; the oldest stored is dropped first. @default 10000 */
  maxEntries?: number;
}

/** A cache in this process's memory: gone on restart, bounded by `maxEntries`. */
export function createMemoryCache(options: MemoryCacheOptions = {}): EnrichmentCache {
  const retention = checkRetention(options.retentionSeconds);
  const maxEntries = options.maxEntries ?? 10_000;
  if (!Number.isInteger(maxEntries) || maxEntries < 1)
    throw new RangeError('maxEntries must be a positive integer');
  // A Map iterates in insertion order; re-inserting on set makes the first key the oldest stored.
  const entries = new Map<string, CacheEntry>();

  return {
    async get(key, now) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.expiresAt <= now) {
        entries.delete(key);
        return undefined;
      }
      return { ...entry, subjects: [...entry.subjects] };
    },
    async set(key, entry) {
      entries.delete(key);
      entries.set(key, {
        ...entry,
        subjects: [...entry.subjects],
        expiresAt: cappedExpiry(entry, retention),
      });
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next().value as string;
        entries.delete(oldest);
      }
    },
    async purgeSubject(subject) {
      let purged = 0;
      for (const [key, entry] of entries) {
        if (entry.subjects.includes(subject)) {
          entries.delete(key);
          purged++;
        }
      }
      return purged;
    },
    async prune(now) {
      let pruned = 0;
      for (const [key, entry] of entries) {
        if (entry.expiresAt <= now) {
          entries.delete(key);
          pruned++;
        }
      }
      return pruned;
    },
    async close() {
      entries.clear();
    },
  };
}
