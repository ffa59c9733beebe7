import { LRUCache } from 'lru-cache';
import {
  type CachedResult,
  checkMaxEntries,
  type ResultCache,
  type ResultCacheOptions,
  resolveResultCacheTtls,
  resultExpiry,
} from './result-cache.js';

/** Options of createMemoryResultCache. */
export interface MemoryResultCacheOptions extends ResultCacheOptions {
  /**
   * Most addresses kept (each with its variants); the least recently used goes first. A result
   * takes about 1.2 KB (measured), so the default holds a whole batch job's list in about 60 MB.
   * @default 50000
   */
  maxEntries?: number;
}

type StoredResult = Omit<CachedResult, 'result'> & { json: string };

const addressKey = (namespace: string, address: string) => `${namespace}\u0000${address}`;

/** A result cache in this process's memory: gone on restart, bounded, least recently used first out. */
export function createMemoryResultCache(options: MemoryResultCacheOptions = {}): ResultCache {
  const ttls = resolveResultCacheTtls(options.ttlSeconds);
  const max = checkMaxEntries(options.maxEntries ?? 50_000, 'maxEntries');
  // One LRU entry per address, holding its variants, so invalidating an address is one delete.
  // Results are kept as JSON text: a copy the caller cannot change, parsed faster than
  // structuredClone copies an object, and about half the memory of the object.
  const entries = new LRUCache<string, Map<string, StoredResult>>({ max });

  return {
    async get(keys, now) {
      return keys.map((key): CachedResult | undefined => {
        const variants = entries.get(addressKey(key.namespace, key.address));
        const entry = variants?.get(key.variant);
        if (!variants || !entry) return undefined;
        if (entry.expiresAt <= now) {
          variants.delete(key.variant);
          if (variants.size === 0) entries.delete(addressKey(key.namespace, key.address));
          return undefined;
        }
        return { result: JSON.parse(entry.json), cachedAt: entry.cachedAt, expiresAt: entry.expiresAt };
      });
    },
    async set(batch, now) {
      for (const { key, result } of batch) {
        const expiresAt = resultExpiry(ttls, result.state, now);
        const id = addressKey(key.namespace, key.address);
        const variants = entries.get(id);
        if (expiresAt === null) {
          // An answer not worth keeping still replaces the older one it contradicts.
          variants?.delete(key.variant);
          continue;
        }
        const next = variants ?? new Map<string, StoredResult>();
        next.set(key.variant, { json: JSON.stringify(result), cachedAt: now, expiresAt });
        if (!variants) entries.set(id, next);
      }
    },
    async invalidate(address, namespace) {
      const ids =
        namespace === undefined
          ? [...entries.keys()].filter((id) => id.endsWith(`\u0000${address}`))
          : [addressKey(namespace, address)];
      let dropped = 0;
      for (const id of ids) {
        const variants = entries.peek(id);
        if (!variants) continue;
        dropped += variants.size;
        entries.delete(id);
      }
      return dropped;
    },
    async close() {
      entries.clear();
    },
  };
}
