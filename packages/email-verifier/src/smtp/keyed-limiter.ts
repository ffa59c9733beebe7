/**
 * Limits concurrent work per key (one MX address) and overall; waiters are served in order,
 * those that asked to go `first` before the others (in their own order).
 */
export class KeyedLimiter {
  private active = new Map<string, number>();
  private total = 0;
  private queue: Array<{ key: string; first: boolean; limit: number; grant: () => void }> = [];

  constructor(
    readonly perKey: number,
    private readonly global: number,
  ) {
    if (!Number.isInteger(perKey) || perKey < 1)
      throw new TypeError(`per-host concurrency must be ≥ 1, got ${perKey}`);
    if (!Number.isInteger(global) || global < 1)
      throw new TypeError(`global concurrency must be ≥ 1, got ${global}`);
  }

  /**
   * Waits for a slot for `key` (at most `limit` held at once for that key: a proxy's own per-MX
   * limit; `perKey` by default); resolves with the function that gives it back.
   */
  acquire(
    key: string,
    signal?: AbortSignal,
    { first = false, limit = this.perKey }: { first?: boolean; limit?: number } = {},
  ): Promise<() => void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const waiter = {
        key,
        first,
        limit,
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          let released = false;
          resolve(() => {
            if (released) return;
            released = true;
            this.release(key);
          });
        },
      };
      const onAbort = () => {
        const index = this.queue.indexOf(waiter);
        if (index >= 0) this.queue.splice(index, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const behind = first ? this.queue.findIndex((queued) => !queued.first) : -1;
      if (behind >= 0) this.queue.splice(behind, 0, waiter);
      else this.queue.push(waiter);
      this.drain();
    });
  }

  /** Slots held now for `key`. */
  activeFor(key: string): number {
    return this.active.get(key) ?? 0;
  }

  private release(key: string) {
    this.total--;
    const count = (this.active.get(key) ?? 1) - 1;
    if (count === 0) this.active.delete(key);
    else this.active.set(key, count);
    this.drain();
  }

  private drain() {
    for (let index = 0; index < this.queue.length && this.total < this.global; ) {
      const waiter = this.queue[index] as (typeof this.queue)[number];
      const count = this.active.get(waiter.key) ?? 0;
      if (count >= waiter.limit) {
        index++;
        continue;
      }
      this.queue.splice(index, 1);
      this.active.set(waiter.key, count + 1);
      this.total++;
      waiter.grant();
    }
  }
}
