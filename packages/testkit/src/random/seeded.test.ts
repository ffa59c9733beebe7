import { expect, it } from 'vitest';
import { seededRandom } from './seeded.js';

it('repeats its sequence for a seed, differs between seeds, and stays in [0, 1)', () => {
  const first = Array.from({ length: 1000 }, seededRandom(7));
  const again = Array.from({ length: 1000 }, seededRandom(7));
  const other = Array.from({ length: 1000 }, seededRandom(8));
  expect(again).toEqual(first);
  expect(other).not.toEqual(first);
  expect(first.every((value) => value >= 0 && value < 1)).toBe(true);
  // Spread over the interval, not stuck in a corner.
  expect(first.filter((value) => value < 0.5).length).toBeGreaterThan(400);
  expect(first.filter((value) => value < 0.5).length).toBeLessThan(600);
});
