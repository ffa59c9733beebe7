/**
 * Single flight: concurrent callers asking the same key share one in-flight promise, so ten
 * simultaneous enrichments of one email make one paid call, not ten. The entry is dropped when
 * the promise settles; later callers start afresh (and usually find the cache).
 */
export class SingleFlight<T> {
  private readonly inFlight = new Map<string, Promise<T>>();

  /** Runs `task` unless one is in flight for `key`; `shared` tells whether the caller joined one. */
  do(key: string, task: () => Promise<T>): { promise: Promise<T>; shared: boolean } {
    const existing = this.inFlight.get(key);
    if (existing) return { promise: existing, shared: true };
    const promise = task().finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, promise);
    return { promise, shared: false };
  }
}
