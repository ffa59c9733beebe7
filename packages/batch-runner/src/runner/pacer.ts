/** Clock and timer of a pacer; real ones by default, a test's own to check the rests it takes. */
export interface PacerClock {
  /** Milliseconds from any fixed point. @default performance.now */
  now(): number;
  /** Calls `then` after `ms`. @default setTimeout */
  after(ms: number, then: () => void): void;
}

/**
 * Runs work one piece at a time, each followed by a rest `restRatio` times as long as the piece
 * took (wall time, so on a busy machine the rest grows with it): the pieces take at most
 * 1 / (1 + restRatio) of the process's time, and the event loop is idle the rest of it. The
 * runner puts sandbox chunks through one: a CPU-only job that never waits for I/O otherwise keeps
 * the process busy from its first chunk to its last, and every request then waits for a CPU.
 */
export function createPacer(
  restRatio: number,
  clock: PacerClock = { now: () => performance.now(), after: (ms, then) => void setTimeout(then, ms) },
) {
  let gate: Promise<void> = Promise.resolve();
  return {
    async run<T>(work: () => Promise<T>): Promise<T> {
      const previous = gate;
      let release = () => {};
      gate = new Promise<void>((resolve) => (release = resolve));
      await previous;
      const started = clock.now();
      try {
        return await work();
      } finally {
        clock.after((clock.now() - started) * restRatio, release);
      }
    },
  };
}
