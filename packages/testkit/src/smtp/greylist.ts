/**
 * Greylisting state of one fake MTA. Like postgrey, a triplet (client address, sender, recipient)
 * is let through only once `delayMs` has passed since its first attempt; early retries do not
 * restart the clock.
 */
export class Greylist {
  readonly #firstSeen = new Map<string, number>();

  /** Records an attempt and says whether it is still greylisted. */
  check(client: string, sender: string, rcpt: string, delayMs: number, now = Date.now()): boolean {
    const key = `${client}\u0000${sender.toLowerCase()}\u0000${rcpt.toLowerCase()}`;
    const first = this.#firstSeen.get(key);
    if (first === undefined) {
      this.#firstSeen.set(key, now);
      return true;
    }
    return now - first < delayMs;
  }

  /** Forgets every triplet. */
  clear(): void {
    this.#firstSeen.clear();
  }
}
