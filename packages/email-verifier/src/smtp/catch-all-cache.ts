/**
 * Remembers which domains accept any recipient. Catch-all is a property of the domain's mail
 * setup, not of one address, so asking it again for every call (a batch job verifies its list
 * in chunks) doubles the RCPTs sent to small domains. Only definite answers are kept; the
 * oldest entries go first once `maxEntries` is reached.
 */
export class CatchAllCache {
  private readonly entries = new Map<string, { catchAll: boolean; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
    private readonly maxEntries = 10_000,
  ) {}

  /** The remembered answer, or undefined when unknown or expired. */
  get(domain: string): boolean | undefined {
    const entry = this.entries.get(domain);
    if (!entry) return undefined;
    if (entry.until <= this.now()) {
      this.entries.delete(domain);
      return undefined;
    }
    return entry.catchAll;
  }

  set(domain: string, catchAll: boolean | null): void {
    if (catchAll === null || this.ttlMs === 0) return;
    this.entries.delete(domain);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(domain, { catchAll, until: this.now() + this.ttlMs });
  }
}
