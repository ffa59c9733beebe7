import { describe, expect, it } from 'vitest';
import { createId, ID_PREFIXES, idTimestamp, isId } from './ids.js';

describe('ids', () => {
  it.each(ID_PREFIXES)('%s ids are prefixed, 36 URL-safe characters, and validate', (prefix) => {
    const id = createId(prefix);
    expect(id).toMatch(new RegExp(`^${prefix}_[0-9a-hjkmnp-tv-z]{36}$`));
    expect(encodeURIComponent(id)).toBe(id);
    expect(isId(prefix, id)).toBe(true);
  });

  it('carries at least 128 random bits: 10,000 ids made in the same millisecond never collide', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => createId('req', 1_700_000_000_000)));
    expect(ids.size).toBe(10_000);
    // The random part uses the whole alphabet: every character appears across 10,000 ids.
    const chars = new Set([...ids].flatMap((id) => [...id.slice(14)]));
    expect(chars.size).toBe(32);
  });

  it('draws every character of the random part evenly from the alphabet, across pool refills', () => {
    // 4,000 ids use the random pool (4 KiB) 25 times over. Each of the 32 characters is expected
    // 3,250 times in 104,000; a bias such as using 4 bits of a byte would put some far outside
    // ±15% (about 8 standard deviations).
    const counts = new Map<string, number>();
    for (let index = 0; index < 4_000; index++) {
      for (const char of createId('req', 1_700_000_000_000).slice(14)) {
        counts.set(char, (counts.get(char) ?? 0) + 1);
      }
    }
    expect(counts.size).toBe(32);
    for (const [char, count] of counts) {
      expect({ char, count, even: Math.abs(count - 3_250) <= 3_250 * 0.15 }).toEqual({
        char,
        count,
        even: true,
      });
    }
  });

  it('sorts by creation time and encodes it', () => {
    const times = [0, 1, 31, 32, 1_700_000_000_000, 1_700_000_000_001, 4_102_444_800_000];
    const ids = times.map((time) => createId('batch', time));
    expect([...ids].sort()).toEqual(ids);
    expect(ids.map(idTimestamp)).toEqual(times);
    // The same time twice and then back again.
    const again = [5, 5, 1_700_000_000_000, 5, 5];
    expect(again.map((time) => idTimestamp(createId('req', time)))).toEqual(again);
  });

  it('rejects ids with another prefix, wrong length or characters outside the alphabet', () => {
    const id = createId('evt');
    expect(isId('req', id)).toBe(false);
    expect(isId('evt', `${id}0`)).toBe(false);
    expect(isId('evt', id.slice(0, -1))).toBe(false);
    expect(isId('evt', `${id.slice(0, -1)}u`)).toBe(false); // u is not in Crockford base32
    expect(isId('evt', `${id.slice(0, -1)}A`)).toBe(false); // uppercase is not produced
    expect(isId('evt', 42)).toBe(false);
  });

  it('refuses bad prefixes and times with clear errors', () => {
    // @ts-expect-error: not a prefix
    expect(() => createId('usr')).toThrow('Unknown id prefix: "usr"');
    expect(() => createId('req', -1)).toThrow('Invalid id time: -1');
    expect(() => createId('req', 1.5)).toThrow('Invalid id time: 1.5');
    expect(() => idTimestamp('req_nope')).toThrow('Not an id: "req_nope"');
  });
});
