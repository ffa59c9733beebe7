import { describe, expect, it } from 'vitest';
import { boundedDistance } from './distance.js';

// The textbook optimal-string-alignment distance, unbounded, as the reference.
function reference(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const row = d[i] as number[];
      const up = d[i - 1] as number[];
      row[j] = Math.min(up[j] as number, row[j - 1] as number) + 1;
      row[j] = Math.min(row[j] as number, (up[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
      }
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}

describe('boundedDistance', () => {
  it.each([
    ['gmail', 'gmail', 0],
    ['gmial', 'gmail', 1],
    ['gmai', 'gmail', 1],
    ['gmaill', 'gmail', 1],
    ['gnail', 'gmail', 1],
    ['hotmial', 'hotmail', 1],
    ['ca', 'abc', 3],
    ['kitten', 'sitting', 3],
    ['', 'abc', 3],
    ['abc', '', 3],
  ])('%s ↔ %s = %i', (a, b, expected) => {
    expect(boundedDistance(a, b, 5)).toBe(expected);
  });

  it('reports anything above the bound as bound + 1', () => {
    expect(boundedDistance('abcdef', 'uvwxyz', 2)).toBe(3);
    expect(boundedDistance('a', 'abcdefgh', 2)).toBe(3);
    expect(boundedDistance('', 'abcdefgh', 2)).toBe(3);
  });

  it('agrees with the reference on random strings, for every bound', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    };
    const word = () =>
      Array.from({ length: Math.floor(random() * 8) }, () => 'abcd'[Math.floor(random() * 4)]).join('');
    for (let i = 0; i < 5000; i++) {
      const a = word();
      const b = word();
      const exact = reference(a, b);
      for (const max of [0, 1, 2, 3])
        expect(boundedDistance(a, b, max), `${a} ${b} ${max}`).toBe(Math.min(exact, max + 1));
    }
  });

  it('handles strings longer than its preallocated rows', () => {
    const long = 'x'.repeat(100);
    expect(boundedDistance(long, `${long}y`, 2)).toBe(1);
    expect(boundedDistance('gmial', 'gmail', 1)).toBe(1);
  });
});
