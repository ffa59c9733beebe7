/**
 * The conformance suite every EnrichmentCache passes: expiry, the retention limit, replacement,
 * purge by subject (erase) and prune. `create` gets the retention to use and returns a fresh cache.
 */
import { describe, expect, it } from 'vitest';
import type { CacheEntry, EnrichmentCache } from '../cache/types.js';

const T0 = 1_700_000_000_000;
const HOUR = 3_600_000;

function entry(value: string, subjects: string[], ttlMs = HOUR, storedAt = T0): CacheEntry {
  return { value, storedAt, expiresAt: storedAt + ttlMs, subjects };
}

export function describeCache(
  name: string,
  create: (options: { retentionSeconds: number }) => EnrichmentCache | Promise<EnrichmentCache>,
): void {
  describe(`cache conformance: ${name}`, () => {
    const open = async (retentionSeconds = 30 * 24 * 3600) => create({ retentionSeconds });

    it('returns what was stored until it expires, then nothing', async () => {
      const cache = await open();
      expect(await cache.get('k', T0)).toBeUndefined();
      await cache.set('k', entry('{"type":"miss"}', ['s1', 's2']));
      const got = await cache.get('k', T0 + HOUR - 1);
      expect(got?.value).toBe('{"type":"miss"}');
      expect(got?.storedAt).toBe(T0);
      expect([...(got?.subjects ?? [])].sort()).toEqual(['s1', 's2']);
      expect(await cache.get('k', T0 + HOUR)).toBeUndefined();
      await cache.close();
    });

    it('replaces an entry under the same key, subjects included', async () => {
      const cache = await open();
      await cache.set('k', entry('old', ['a']));
      await cache.set('k', entry('new', ['b']));
      expect((await cache.get('k', T0))?.value).toBe('new');
      expect(await cache.purgeSubject('a')).toBe(0);
      expect(await cache.purgeSubject('b')).toBe(1);
      expect(await cache.get('k', T0)).toBeUndefined();
      await cache.close();
    });

    it('caps every TTL at the retention limit', async () => {
      const cache = await open(60);
      await cache.set('k', entry('v', ['a'], 365 * 24 * HOUR));
      expect((await cache.get('k', T0 + 59_000))?.value).toBe('v');
      expect(await cache.get('k', T0 + 60_000)).toBeUndefined();
      await cache.close();
    });

    it('purges every entry about a subject and nothing else', async () => {
      const cache = await open();
      await cache.set('web:jane', entry('1', ['jane', 'acme']));
      await cache.set('pdl:jane', entry('2', ['jane']));
      await cache.set('web:acme', entry('3', ['acme']));
      expect(await cache.purgeSubject('jane')).toBe(2);
      expect(await cache.get('web:jane', T0)).toBeUndefined();
      expect(await cache.get('pdl:jane', T0)).toBeUndefined();
      expect((await cache.get('web:acme', T0))?.value).toBe('3');
      await cache.close();
    });

    it('prunes expired entries', async () => {
      const cache = await open();
      await cache.set('short', entry('1', ['x'], 1000));
      await cache.set('long', entry('2', ['x'], HOUR));
      expect(await cache.prune(T0 + 1000)).toBe(1);
      expect((await cache.get('long', T0 + 1000))?.value).toBe('2');
      await cache.close();
    });
  });
}
