/**
 * Lets the event loop run what is waiting (I/O callbacks, timers, other requests) before the
 * caller goes on: what a long piece of synchronous work awaits between its slices.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
