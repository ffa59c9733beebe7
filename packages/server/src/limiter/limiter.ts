/**
 * The rate-limiter seam (DESIGN §8): one token bucket per account, shared by all its keys and
 * tokens. The in-memory limiter (`memory.ts`) is the default; a Redis limiter comes with the
 * scale-out issue and passes the same suite (`testing/describe-rate-limiter.ts`).
 */

/** A bucket's shape: refill rate and capacity. */
export interface BucketSpec {
  /** Tokens added per second. */
  ratePerSecond: number;
  /** Capacity (the burst). */
  burst: number;
}

/** The outcome of taking from a bucket, with what the `X-RateLimit-*` headers report. */
export interface RateDecision {
  allowed: boolean;
  /** The bucket's capacity (`X-RateLimit-Limit`). */
  limit: number;
  /** Whole requests left now, after this one (`X-RateLimit-Remaining`). */
  remaining: number;
  /** Whole seconds until the bucket is full again (`X-RateLimit-Reset`). */
  resetSeconds: number;
  /** When refused: whole seconds until one request would be allowed (`Retry-After`, at least 1). */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  /** Takes `cost` tokens (default 1) from the bucket `key` if it has them. */
  take(key: string, spec: BucketSpec, now: number, cost?: number): Promise<RateDecision>;
  /**
   * `take` answered at once, for limiters whose buckets live in this process (the memory
   * limiter); a limiter that must ask another process (Redis) leaves it out. The server's hooks
   * use it when present, which spares every request a promise and a microtask turn.
   */
  takeSync?(key: string, spec: BucketSpec, now: number, cost?: number): RateDecision;
  close(): Promise<void>;
}
