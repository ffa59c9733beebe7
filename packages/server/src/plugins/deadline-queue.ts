/**
 * Deadlines that share one duration, kept oldest first with one timer for them all.
 *
 * Every routed request gets a deadline, and nearly all are answered long before it. A Node timer
 * per request (setTimeout, unref, clearTimeout: a Timeout object, a closure and the timer list's
 * bookkeeping, each time) was a measurable share of a cheap call. Here a request is a node
 * appended to its duration's queue and unlinked when it is answered, both O(1) and without a
 * timer call; as every node of a queue has the same duration, the oldest is always the next to
 * expire, and the queue's one timer is armed for it only when it fires.
 */

/** A request waiting on its deadline. */
export interface DeadlineEntry {
  /** When the deadline passes, on `performance.now()`'s clock (monotonic: the order holds). */
  at: number;
  /** The queue holding the entry; null once it has left (answered, ended, or expired). */
  queue: DeadlineQueue | null;
  prev: DeadlineEntry | null;
  next: DeadlineEntry | null;
  /** Called (once, after it left its queue) when the deadline passed unanswered. */
  expired(): void;
}

/** The queues by duration (ms); a queue is dropped when its timer finds it empty. */
const queues = new Map<number, DeadlineQueue>();

/** The queue of the deadlines `ms` long, made when first needed. */
export function deadlineQueue(ms: number): DeadlineQueue {
  let queue = queues.get(ms);
  if (!queue) {
    queue = new DeadlineQueue(ms);
    queues.set(ms, queue);
  }
  return queue;
}

export class DeadlineQueue {
  private head: DeadlineEntry | null = null;
  private tail: DeadlineEntry | null = null;
  private timer: NodeJS.Timeout | undefined;

  constructor(readonly ms: number) {}

  /** Appends `entry` (which must be in no queue), due `ms` from now. */
  add(entry: DeadlineEntry): void {
    entry.at = performance.now() + this.ms;
    entry.queue = this;
    entry.prev = this.tail;
    entry.next = null;
    if (this.tail) this.tail.next = entry;
    else this.head = entry;
    this.tail = entry;
    if (!this.timer) this.arm(this.ms);
  }

  /** Takes `entry` out of the queue; the timer is left alone (it re-arms for the new oldest). */
  remove(entry: DeadlineEntry): void {
    if (entry.queue !== this) return;
    if (entry.prev) entry.prev.next = entry.next;
    else this.head = entry.next;
    if (entry.next) entry.next.prev = entry.prev;
    else this.tail = entry.prev;
    entry.queue = null;
    entry.prev = null;
    entry.next = null;
  }

  private arm(ms: number): void {
    clearTimeout(this.timer);
    // At least 1 ms: Node runs a timer of 0 as 1 anyway, and the entry is due by then.
    this.timer = setTimeout(() => this.fire(), Math.max(1, Math.ceil(ms)));
    // A pending deadline never keeps the process alive (a closing server waits for its requests).
    this.timer.unref();
  }

  /** Expires every entry whose time is up, then waits for the oldest left, or drops the queue. */
  private fire(): void {
    this.timer = undefined;
    const now = performance.now();
    let entry = this.head;
    while (entry && entry.at <= now) {
      this.remove(entry);
      entry.expired();
      entry = this.head;
    }
    if (entry) this.arm(entry.at - now);
    else if (queues.get(this.ms) === this) queues.delete(this.ms);
  }
}
