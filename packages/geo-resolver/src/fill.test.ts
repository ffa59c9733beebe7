import { describe, expect, it } from 'vitest';
import { loadDefaultTimezoneFinder } from './fill.js';
import { seeded } from './testing/random.js';

describe('default timezone finder', () => {
  it('answers as @photostructure/tz-lookup does on the 0.001° grid, remembered or not', async () => {
    const find = await loadDefaultTimezoneFinder();
    const { default: tzLookup } = (await import('@photostructure/tz-lookup')) as {
      default: (lat: number, lon: number) => string;
    };
    const random = seeded(5);
    // More coordinates than the memo has slots, so remembered, replaced and fresh answers all occur.
    const points = Array.from({ length: 40_000 }, () => [random() * 170 - 85, random() * 360 - 180] as const);
    const expected = (latitude: number, longitude: number) =>
      tzLookup(
        Math.round((latitude + 90) * 1000) / 1000 - 90,
        Math.round((longitude + 180) * 1000) / 1000 - 180,
      );
    for (let round = 0; round < 2; round++) {
      for (const [latitude, longitude] of points.slice(0, round === 0 ? undefined : 5_000)) {
        expect(find(latitude, longitude)).toBe(expected(latitude, longitude));
      }
    }
    // A known answer, asked twice (the second from the memo).
    expect(find(51.5074, -0.1278)).toBe('Europe/London');
    expect(find(51.5074, -0.1278)).toBe('Europe/London');
  });
});
