import { describe, expect, it } from 'vitest';
import { usageDay, usageMonth } from './month.js';

describe('usage month and day', () => {
  it('are the UTC calendar month and day, across day, month and year boundaries in any order', () => {
    const times = [
      ['2026-11-30T23:59:59.999Z', '2026-11', '2026-11-30'],
      ['2026-12-01T00:00:00.000Z', '2026-12', '2026-12-01'],
      ['2026-11-30T23:59:59.999Z', '2026-11', '2026-11-30'],
      ['2026-12-31T23:59:59.999Z', '2026-12', '2026-12-31'],
      ['2027-01-01T00:00:00.000Z', '2027-01', '2027-01-01'],
      ['2027-01-01T12:00:00.000Z', '2027-01', '2027-01-01'],
      ['1969-12-31T23:59:59.999Z', '1969-12', '1969-12-31'],
    ] as const;
    for (const [iso, month, day] of times) {
      const now = Date.parse(iso);
      expect([usageMonth(now), usageDay(now)]).toEqual([month, day]);
    }
  });
});
