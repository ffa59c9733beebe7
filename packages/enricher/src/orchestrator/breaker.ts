import type { AdapterError } from '../adapter.js';

export interface BreakerOptions {
  /** Consecutive failed lookups that open the circuit. @default 5 */
  failureThreshold?: number;
  /** How long an open circuit refuses calls before one trial call is let through, ms. @default 30000 */
  cooldownMs?: number;
}

/**
 * A circuit breaker for one adapter: after `failureThreshold` consecutive errors the adapter is
 * skipped for `cooldownMs` (or the provider's Retry-After, when longer), then ONE trial call is
 * let through (half-open): a success closes the circuit, a failure opens it again. A failing
 * provider is thus asked a few times a minute, not on every enrichment.
 */
export class CircuitBreaker {
  private failures = 0;
  private openUntil = 0;
  private trialInFlight = false;
  private readonly threshold: number;
  private readonly cooldownMs: number;

  constructor(
    private readonly now: () => number,
    options: BreakerOptions = {},
  ) {
    this.threshold = options.failureThreshold ?? 5;
    this.cooldownMs = options.cooldownMs ?? 30_000;
    if (!Number.isInteger(this.threshold) || this.threshold < 1)
      throw new RangeError('failureThreshold must be a positive integer');
    if (!(this.cooldownMs >= 0)) throw new RangeError('cooldownMs must be ≥ 0');
  }

  get state(): 'closed' | 'open' | 'half_open' {
    if (this.failures < this.threshold) return 'closed';
    return this.now() < this.openUntil ? 'open' : 'half_open';
  }

  /** Whether a call may go ahead now; in half-open only one trial at a time. */
  tryAcquire(): boolean {
    const state = this.state;
    if (state === 'closed') return true;
    if (state === 'open' || this.trialInFlight) return false;
    this.trialInFlight = true;
    return true;
  }

  success(): void {
    this.failures = 0;
    this.trialInFlight = false;
  }

  failure(error: AdapterError): void {
    this.trialInFlight = false;
    this.failures++;
    // A rate limit is an explicit instruction to back off: honour it at once, however few failures.
    const retryMs =
      error.kind === 'rate_limited' && error.retryAfterSeconds ? error.retryAfterSeconds * 1000 : 0;
    if (retryMs > 0) this.failures = Math.max(this.failures, this.threshold);
    if (this.failures >= this.threshold) this.openUntil = this.now() + Math.max(this.cooldownMs, retryMs);
  }
}
