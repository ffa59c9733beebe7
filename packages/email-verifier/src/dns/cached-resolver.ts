import { LRUCache } from 'lru-cache';
import { type DnsAnswer, DnsQueryError, type DnsResolver } from './resolver.js';

/** Options of the DNS cache. */
export interface DnsCacheOptions {
  /**
   * Most answers kept.
   * @default 10000
   */
  maxEntries?: number;
  /**
   * TTL used when the backend reports none (node:dns MX answers), in seconds.
   * @default 300
   */
  defaultTtlSeconds?: number;
  /**
   * Floor and ceiling applied to answer TTLs, in seconds.
   * @default { min: 30, max: 3600 }
   */
  ttlBounds?: { min: number; max: number };
  /**
   * How long NXDOMAIN and empty answers are remembered, in seconds (RFC 2308 negative caching).
   * @default 60
   */
  negativeTtlSeconds?: number;
  /** Milliseconds clock, for tests. @default performance.now */
  now?: () => number;
}

type Entry = Promise<DnsAnswer<unknown>>;

/** A resolver with its cache, which can be emptied (after the resolver was found lying, say). */
export interface CachedDnsResolver extends DnsResolver {
  /** Forgets every cached answer. */
  clear(): void;
}

/**
 * Wraps a resolver with a TTL-respecting LRU cache. Concurrent questions for the same name share
 * one query (single flight). SERVFAIL and timeouts are never cached: the next call asks again.
 */
export function withDnsCache(resolver: DnsResolver, options: DnsCacheOptions = {}): CachedDnsResolver {
  const defaultTtl = options.defaultTtlSeconds ?? 300;
  const bounds = options.ttlBounds ?? { min: 30, max: 3600 };
  const negativeTtl = options.negativeTtlSeconds ?? 60;
  const now = options.now ?? (() => performance.now());
  const cache = new LRUCache<string, Entry>({
    max: options.maxEntries ?? 10_000,
    ttlAutopurge: false,
    perf: { now },
  });

  function cached<T>(key: string, ask: () => Promise<DnsAnswer<T>>): Promise<DnsAnswer<T>> {
    const hit = cache.get(key);
    if (hit) return hit as Promise<DnsAnswer<T>>;
    const pending = ask().then(
      (answer) => {
        const seconds =
          answer.records.length === 0
            ? negativeTtl
            : Math.min(bounds.max, Math.max(bounds.min, answer.ttlSeconds ?? defaultTtl));
        cache.set(key, pending, { ttl: seconds * 1000 });
        return answer;
      },
      (error: unknown) => {
        if (error instanceof DnsQueryError && error.kind === 'not_found') {
          cache.set(key, pending, { ttl: negativeTtl * 1000 });
        } else {
          cache.delete(key);
        }
        throw error;
      },
    );
    // Until it settles, an in-flight query is shared; a long TTL keeps it from expiring mid-flight.
    cache.set(key, pending, { ttl: 24 * 3600 * 1000 });
    return pending;
  }

  const cachedResolver: CachedDnsResolver = {
    clear: () => cache.clear(),
    mx: (domain) => cached(`MX ${domain.toLowerCase()}`, () => resolver.mx(domain)),
    a: (domain) => cached(`A ${domain.toLowerCase()}`, () => resolver.a(domain)),
    aaaa: (domain) => cached(`AAAA ${domain.toLowerCase()}`, () => resolver.aaaa(domain)),
  };
  if (resolver.name !== undefined) return { ...cachedResolver, name: resolver.name };
  return cachedResolver;
}
