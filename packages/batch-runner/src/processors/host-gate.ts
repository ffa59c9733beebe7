/**
 * At most `perHost` lookups in flight per host, first come first served. The enrich processors
 * hold one gate for their lifetime, so the limit holds across every chunk of a job (and across
 * jobs), the way one verifier keeps per-MX limits for every verify_email chunk.
 */
export interface HostGate {
  /** Runs `task` once the host has a free slot; a waiter whose signal aborts leaves the queue. */
  run<T>(host: string, signal: AbortSignal, task: () => Promise<T>): Promise<T>;
  /** Lookups in flight for `host` now (for tests and metrics). */
  active(host: string): number;
}

export function createHostGate(perHost: number): HostGate {
  if (!Number.isInteger(perHost) || perHost < 1) {
    throw new TypeError(`perHostConcurrency must be a positive integer, got ${perHost}`);
  }
  const hosts = new Map<string, { active: number; waiting: Array<() => void> }>();

  const acquire = (host: string, signal: AbortSignal): Promise<void> => {
    let entry = hosts.get(host);
    if (!entry) {
      entry = { active: 0, waiting: [] };
      hosts.set(host, entry);
    }
    if (entry.active < perHost) {
      entry.active++;
      return Promise.resolve();
    }
    const slot = entry;
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const at = slot.waiting.indexOf(grant);
        if (at >= 0) slot.waiting.splice(at, 1);
        reject(signal.reason);
      };
      const grant = () => {
        signal.removeEventListener('abort', onAbort);
        slot.active++;
        resolve();
      };
      slot.waiting.push(grant);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  };

  const release = (host: string) => {
    const entry = hosts.get(host);
    if (!entry) return;
    entry.active--;
    const next = entry.waiting.shift();
    if (next) next();
    else if (entry.active === 0) hosts.delete(host); // forget idle hosts: a job may touch 50,000
  };

  return {
    async run(host, signal, task) {
      signal.throwIfAborted();
      await acquire(host, signal);
      try {
        return await task();
      } finally {
        release(host);
      }
    },
    active: (host) => hosts.get(host)?.active ?? 0,
  };
}
