import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { type DeadlineEntry, deadlineQueue } from './deadline-queue.js';

/** An entry that records when it expired, in the order entries expire. */
function entry(name: string, expired: string[]): DeadlineEntry & { expiredAt?: number } {
  const own: DeadlineEntry & { expiredAt?: number } = {
    at: 0,
    queue: null,
    prev: null,
    next: null,
    expired() {
      own.expiredAt = performance.now();
      expired.push(name);
    },
  };
  return own;
}

describe('deadline queues', () => {
  it('expires entries oldest first, each no earlier than its duration, and never one taken out', async () => {
    const expired: string[] = [];
    const queue = deadlineQueue(40);
    const started = new Map<string, number>();
    const entries = ['a', 'b', 'c', 'd'].map((name) => entry(name, expired));
    for (const [index, item] of entries.entries()) {
      started.set(['a', 'b', 'c', 'd'][index] as string, performance.now());
      queue.add(item);
      await sleep(10);
    }
    // b is answered (head and middle removal alike must keep the links right).
    queue.remove(entries[1] as DeadlineEntry);
    expect(entries[1]?.queue).toBeNull();
    await sleep(150);
    expect(expired).toEqual(['a', 'c', 'd']);
    for (const item of [entries[0], entries[2], entries[3]]) {
      expect(item?.queue).toBeNull();
    }
    // Each fired at or after its own 40 ms (a timer may be late, never early).
    for (const [index, name] of ['a', 'c', 'd'].entries()) {
      const item = entries[[0, 2, 3][index] as number];
      expect((item?.expiredAt ?? 0) - (started.get(name) ?? 0)).toBeGreaterThanOrEqual(39);
    }
  });

  it('keeps durations apart, re-arms for entries added later, and takes an entry back after removal', async () => {
    const expired: string[] = [];
    const long = entry('long', expired);
    const short = entry('short', expired);
    const again = entry('again', expired);
    deadlineQueue(120).add(long);
    deadlineQueue(20).add(short);
    const shortQueue = deadlineQueue(20);
    shortQueue.add(again);
    shortQueue.remove(again);
    // Added back: due 20 ms from now, not from its first add.
    shortQueue.add(again);
    await sleep(70);
    expect(expired).toEqual(['short', 'again']);
    // A queue found empty when its timer fires is dropped; the next asks make a new one.
    expect(deadlineQueue(20)).not.toBe(shortQueue);
    const late = entry('late', expired);
    deadlineQueue(20).add(late);
    await sleep(120);
    expect(expired).toEqual(['short', 'again', 'late', 'long']);
  });

  it('removing an entry from a queue that does not hold it changes nothing', async () => {
    const expired: string[] = [];
    const held = entry('held', expired);
    const stranger = entry('stranger', expired);
    deadlineQueue(30).add(held);
    deadlineQueue(31).remove(held);
    deadlineQueue(30).remove(stranger);
    expect(held.queue).toBe(deadlineQueue(30));
    await sleep(100);
    expect(expired).toEqual(['held']);
  });
});
