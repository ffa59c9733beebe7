import type { BucketSpec, RateDecision, RateLimiter } from './limiter.js';

interface Bucket {
  tokens: number;
  /** ms since the epoch of the last refill. */
  at: number;
}

/** Options of the in-memory limiter. */
export interface MemoryRateLimiterOptions {
  /**
   * Buckets kept at most; beyond it the least recently used is dropped (it has refilled the
   * longest, and a full bucket is the same as no bucket).
   * @default 100_000
   */
  maxBuckets?: number;
}

/** Refuses a bucket shape or cost no bucket can work with (shared by every limiter). */
export function check(spec: BucketSpec, cost: number): void {
  if (!(Number.isFinite(spec.ratePerSecond) && spec.ratePerSecond > 0)) {
    throw new TypeError(`ratePerSecond must be a positive number, got ${spec.ratePerSecond}`);
  }
  if (!(Number.isFinite(spec.burst) && spec.burst >= 1)) {
    throw new TypeError(`burst must be a number ≥ 1, got ${spec.burst}`);
  }
  if (!(Number.isFinite(cost) && cost >= 0)) throw new TypeError(`cost must be a number ≥ 0, got ${cost}`);
}

/**
 * Token buckets in this process (DESIGN §8: the default; one server instance). `take` with
 * cost 0 reads a bucket without taking from it (`allowed` then means at least one whole token
 * is there), which the auth plugin uses to refuse a client that already failed too often.
 */
export function createMemoryRateLimiter(options: MemoryRateLimiterOptions = {}): RateLimiter {
  const maxBuckets = options.maxBuckets ?? 100_000;
  if (!Number.isInteger(maxBuckets) || maxBuckets < 1) {
    throw new TypeError(`maxBuckets must be a positive integer, got ${maxBuckets}`);
  }
  // Map order = least recently touched first (a touched bucket is moved to the end).
  const buckets = new Map<string, Bucket>();
  // The bucket touched last is at the end already: a busy account's calls in a row skip the move
  // (a delete and a set of the Map per call).
  let newest: string | undefined;

  const takeSync = (key: string, spec: BucketSpec, now: number, cost = 1): RateDecision => {
    check(spec, cost);
    let bucket = buckets.get(key);
    let tokens = spec.burst;
    if (bucket) {
      const elapsed = Math.max(0, now - bucket.at) / 1000;
      tokens = Math.min(spec.burst, bucket.tokens + elapsed * spec.ratePerSecond);
      if (key !== newest) {
        buckets.delete(key);
        buckets.set(key, bucket);
      }
    } else {
      bucket = { tokens, at: now };
      buckets.set(key, bucket);
    }
    newest = key;
    // cost 0 is a look: allowed only when a whole request would be.
    const allowed = cost === 0 ? tokens >= 1 : tokens >= cost;
    if (allowed) tokens -= cost;
    bucket.tokens = tokens;
    bucket.at = Math.max(now, bucket.at);
    if (buckets.size > maxBuckets) {
      const oldest = buckets.keys().next().value;
      if (oldest !== undefined) buckets.delete(oldest);
    }
    return decide(allowed, tokens, spec, cost);
  };

  return {
    takeSync,
    async take(key, spec, now, cost) {
      return takeSync(key, spec, now, cost);
    },
    async close() {
      buckets.clear();
      newest = undefined;
    },
  };
}

/** The decision and its header values from a bucket's tokens after a take (shared by every limiter). */
export function decide(allowed: boolean, tokens: number, spec: BucketSpec, cost: number): RateDecision {
  const missing = Math.max(cost, 1) - tokens;
  return {
    allowed,
    limit: spec.burst,
    // A tiny epsilon: refill arithmetic on floats can leave 0.9999999 where 1 was meant.
    remaining: Math.max(0, Math.floor(tokens + 1e-9)),
    resetSeconds: Math.max(0, Math.ceil((spec.burst - tokens) / spec.ratePerSecond - 1e-9)),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil(missing / spec.ratePerSecond - 1e-9)),
  };
}
