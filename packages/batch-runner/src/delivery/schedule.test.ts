import { describe, expect, it } from 'vitest';
import { DELIVERY_WINDOW_MS, nextAttemptAt, parseRetryAfter, RETRY_OFFSETS_MS } from './schedule.js';

const first = 1_700_000_000_000;

describe('webhook retry schedule', () => {
  it('follows 0, 5 s, 1 min, 5 min, 30 min, 1 h … 24 h after the first attempt, then gives up', () => {
    const noJitter = () => 0.5;
    const offsets: number[] = [];
    for (let attempt = 1; ; attempt++) {
      const at = nextAttemptAt(attempt, first, { now: first + (offsets.at(-1) ?? 0), random: noJitter });
      if (at === null) break;
      offsets.push(at - first);
    }
    expect(offsets).toEqual(RETRY_OFFSETS_MS.slice(1));
    expect(offsets.at(-1)).toBe(DELIVERY_WINDOW_MS);
  });

  it('jitters each gap by at most ±10% and never past the 24 h window', () => {
    for (const random of [() => 0, () => 0.999999]) {
      for (let attempt = 1; attempt < RETRY_OFFSETS_MS.length; attempt++) {
        const planned = RETRY_OFFSETS_MS[attempt] as number;
        const at = nextAttemptAt(attempt, first, { now: first, random }) as number;
        expect(Math.abs(at - first - planned)).toBeLessThanOrEqual(planned * 0.1 + 1);
        expect(at - first).toBeLessThanOrEqual(DELIVERY_WINDOW_MS);
      }
    }
  });

  it('honours Retry-After inside the window and gives up when it points past it', () => {
    const now = first + 5_000;
    expect(nextAttemptAt(2, first, { now, retryAfterMs: 120_000, random: () => 0.5 })).toBe(now + 120_000);
    // A Retry-After shorter than the plan does not make us retry sooner.
    expect(nextAttemptAt(2, first, { now, retryAfterMs: 1_000, random: () => 0.5 })).toBe(first + 60_000);
    expect(nextAttemptAt(2, first, { now, retryAfterMs: DELIVERY_WINDOW_MS, random: () => 0.5 })).toBeNull();
  });

  it('parses Retry-After as seconds or an HTTP date, ignoring garbage', () => {
    const now = Date.parse('2026-11-23T10:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 10:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});
