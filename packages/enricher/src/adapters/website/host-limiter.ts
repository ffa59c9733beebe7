/** At most `perHost` requests in flight to one host; the rest wait in order (or until aborted). */
export class HostLimiter {
  readonly #perHost: number;
  readonly #hosts = new Map<string, { active: number; waiting: Array<() => void> }>();

  constructor(perHost: number) {
    this.#perHost = perHost;
  }

  /** Runs `task` when the host has a free slot. */
  async run<T>(host: string, signal: AbortSignal, task: () => Promise<T>): Promise<T> {
    let state = this.#hosts.get(host);
    if (!state) {
      state = { active: 0, waiting: [] };
      this.#hosts.set(host, state);
    }
    if (state.active >= this.#perHost) {
      const slot = state;
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          slot.waiting.splice(slot.waiting.indexOf(go), 1);
          reject(signal.reason);
        };
        const go = () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        };
        if (signal.aborted) return reject(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
        slot.waiting.push(go);
      });
    } else {
      state.active++;
    }
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next waiter (active stays the same), or free it.
      const next = state.waiting.shift();
      if (next) next();
      else if (--state.active === 0) this.#hosts.delete(host);
    }
  }

  /** Requests in flight to `host` now (for tests and stats). */
  active(host: string): number {
    return this.#hosts.get(host)?.active ?? 0;
  }
}
