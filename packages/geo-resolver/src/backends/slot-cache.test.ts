import { describe, expect, it } from 'vitest';
import { SlotCache } from './slot-cache.js';

describe('slot cache', () => {
  it('returns what was stored, and nothing for keys never stored (0 included)', () => {
    const cache = new SlotCache<string>(4);
    expect(cache.get(0)).toBeUndefined();
    cache.set(0, 'zero');
    cache.set(2 ** 32 - 1, 'top');
    expect(cache.get(0)).toBe('zero');
    expect(cache.get(2 ** 32 - 1)).toBe('top');
    expect(cache.get(1)).toBeUndefined();
  });

  it('keeps one key per slot: a colliding key replaces the one before, never answers for it', () => {
    const cache = new SlotCache<number>(2);
    // Four slots, forty keys: most collide; whatever is returned must belong to the key asked.
    for (let key = 0; key < 40; key++) cache.set(key * 7919, key);
    let kept = 0;
    for (let key = 0; key < 40; key++) {
      const value = cache.get(key * 7919);
      if (value !== undefined) {
        expect(value).toBe(key);
        kept++;
      }
    }
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThanOrEqual(4);
  });

  it('tells apart keys that agree in their low 32 bits', () => {
    const cache = new SlotCache<string>(8);
    cache.set(5, 'small');
    expect(cache.get(5 + 2 ** 32)).toBeUndefined();
  });

  it('refuses sizes it cannot hash into', () => {
    expect(() => new SlotCache(0)).toThrow(RangeError);
    expect(() => new SlotCache(25)).toThrow(RangeError);
  });
});
