import type { AdapterContext } from '../../adapter.js';
import type { SiteCrawl } from './company.js';
import type { CrawlFailure } from './crawler.js';

/** What one crawl of a domain gave, with the bytes of HTML it read (the cache's size measure). */
export interface CrawlResult {
  value: SiteCrawl | CrawlFailure;
  bytes: number;
}

/** Limits of the crawl cache. */
export interface CrawlCacheLimits {
  /** How long a crawl is reused, ms; 0 keeps none (concurrent lookups still share one crawl). */
  ttlMs: number;
  /** Most domains kept; the least recently used goes first. */
  maxSites: number;
  /** Most HTML bytes the kept crawls were read from, summed; the least recently used go first. */
  maxBytes: number;
}

interface Kept {
  value: SiteCrawl | CrawlFailure;
  bytes: number;
  expiresAt: number;
}

interface Flight {
  promise: Promise<CrawlResult>;
  controller: AbortController;
  waiters: number;
}

/**
 * One crawl per domain: a finished crawl (a site read, or a miss such as no web server) is reused
 * until its TTL passes, and lookups arriving while a crawl of their domain runs wait for it
 * instead of starting another. Errors (timeouts, 5xx, 429) are never kept, as the orchestrator
 * never caches them either.
 *
 * The shared crawl runs under its own abort signal, aborted only when every lookup waiting for it
 * has given up: one caller's deadline does not fail the others. Crawls made through different
 * `fetch` functions (different SSRF guards) are never shared.
 */
export class CrawlCache {
  readonly #limits: CrawlCacheLimits;
  // A Map iterates in insertion order; re-inserting on use makes the first key the least recently used.
  readonly #kept = new Map<string, Kept>();
  readonly #flights = new Map<string, Flight>();
  readonly #fetchIds = new WeakMap<typeof fetch, number>();
  #nextFetchId = 0;
  #bytes = 0;

  constructor(limits: CrawlCacheLimits) {
    this.#limits = limits;
  }

  /** The crawl of `domain`: kept, joined in flight, or made now by `crawl` (given the shared signal). */
  async get(
    domain: string,
    context: AdapterContext,
    crawl: (context: AdapterContext) => Promise<CrawlResult>,
  ): Promise<SiteCrawl | CrawlFailure> {
    const key = `${this.#fetchId(context.fetch)}|${domain}`;
    const kept = this.#kept.get(key);
    if (kept) {
      this.#drop(key, kept);
      if (kept.expiresAt > context.now()) {
        this.#keep(key, kept);
        return kept.value;
      }
    }
    let flight = this.#flights.get(key);
    if (!flight) {
      const controller = new AbortController();
      const started = crawl({ ...context, signal: controller.signal }).then((result) => {
        // An abandoned crawl may have stopped half-way (subpages missing): not worth keeping.
        if (!controller.signal.aborted) this.#store(key, result, context.now());
        return result;
      });
      const entry: Flight = { promise: started, controller, waiters: 0 };
      const settle = () => {
        if (this.#flights.get(key) === entry) this.#flights.delete(key);
      };
      started.then(settle, settle);
      this.#flights.set(key, entry);
      flight = entry;
    }
    return this.#wait(key, flight, context.signal);
  }

  /** Forgets every kept crawl (in-flight ones finish and are kept). */
  clear(): void {
    this.#kept.clear();
    this.#bytes = 0;
  }

  /** How many domains are kept and the HTML bytes they were read from (for tests and metrics). */
  get size(): { sites: number; bytes: number } {
    return { sites: this.#kept.size, bytes: this.#bytes };
  }

  #fetchId(fetchFn: typeof fetch): number {
    let id = this.#fetchIds.get(fetchFn);
    if (id === undefined) {
      id = this.#nextFetchId++;
      this.#fetchIds.set(fetchFn, id);
    }
    return id;
  }

  /** Waits for the flight as one more waiter; the last waiter to give up aborts the crawl. */
  #wait(key: string, flight: Flight, signal: AbortSignal): Promise<SiteCrawl | CrawlFailure> {
    if (signal.aborted) return Promise.reject(signal.reason);
    flight.waiters++;
    return new Promise((resolve, reject) => {
      let waiting = true;
      const stop = () => {
        waiting = false;
        flight.waiters--;
        signal.removeEventListener('abort', onAbort);
      };
      const onAbort = () => {
        stop();
        if (flight.waiters === 0) {
          // Nobody wants it any more: a lookup arriving now starts afresh rather than joining a dying crawl.
          if (this.#flights.get(key) === flight) this.#flights.delete(key);
          flight.controller.abort(signal.reason);
        }
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      flight.promise.then(
        (result) => {
          if (!waiting) return;
          stop();
          resolve(result.value);
        },
        (error: unknown) => {
          if (!waiting) return;
          stop();
          reject(error);
        },
      );
    });
  }

  #store(key: string, result: CrawlResult, now: number): void {
    const { ttlMs, maxSites, maxBytes } = this.#limits;
    if (ttlMs === 0 || maxSites === 0) return;
    if ('type' in result.value && result.value.type === 'error') return;
    if (result.bytes > maxBytes) return;
    const old = this.#kept.get(key);
    if (old) this.#drop(key, old);
    this.#keep(key, { value: result.value, bytes: result.bytes, expiresAt: now + ttlMs });
    for (const [oldest, entry] of this.#kept) {
      if (this.#kept.size <= maxSites && this.#bytes <= maxBytes) break;
      this.#drop(oldest, entry);
    }
  }

  #keep(key: string, entry: Kept): void {
    this.#kept.set(key, entry);
    this.#bytes += entry.bytes;
  }

  #drop(key: string, entry: Kept): void {
    this.#kept.delete(key);
    this.#bytes -= entry.bytes;
  }
}
