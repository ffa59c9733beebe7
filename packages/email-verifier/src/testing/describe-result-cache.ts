import type { EmailVerificationResult, VerificationState } from '@svc/core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_RESULT_CACHE_TTLS,
  type ResultCache,
  type ResultCacheKey,
  type ResultCacheOptions,
} from '../result-cache/result-cache.js';

/** Builds the cache under test (a new, empty one each time). */
export type ResultCacheFactory = (options: ResultCacheOptions) => ResultCache | Promise<ResultCache>;

/** A result in the given state, as the verifier would store it. */
export function sampleResult(state: VerificationState, email = 'alice@example.com'): EmailVerificationResult {
  return {
    email,
    deliverable: state === 'deliverable',
    state,
    quality_score: state === 'deliverable' ? 1 : 0,
    reasons: state === 'undeliverable' ? ['mailbox_not_found'] : [],
    is_disposable: false,
    is_catch_all: false,
    mx: { accepts_mail: true, records: ['mx.example.com'] },
    checked_at: '2026-11-23T22:00:00.000Z',
    request_id: 'req_sample',
    normalized: email,
    smtp: { host: 'mx.example.com', code: 250, enhanced_status: '2.1.5', message: 'OK', tls: true },
  };
}

const key = (address: string, namespace = '', variant = 'probe=1;disposable=1'): ResultCacheKey => ({
  namespace,
  address,
  variant,
});

/**
 * The shared conformance suite of ResultCache implementations: every backend stores, expires,
 * separates namespaces and variants, and invalidates alike.
 */
export function describeResultCache(name: string, factory: ResultCacheFactory): void {
  describe(`ResultCache conformance: ${name}`, () => {
    const opened: ResultCache[] = [];
    const open = async (options: ResultCacheOptions = {}) => {
      const cache = await factory(options);
      opened.push(cache);
      return cache;
    };
    afterEach(async () => {
      for (const cache of opened.splice(0)) await cache.close();
    });

    it('returns what was stored, with when it was stored and until when, in the order asked', async () => {
      const cache = await open();
      const alice = sampleResult('deliverable', 'alice@example.com');
      const bob = sampleResult('undeliverable', 'bob@example.com');
      await cache.set(
        [
          { key: key('alice@example.com'), result: alice },
          { key: key('bob@example.com'), result: bob },
        ],
        1000,
      );
      const [b, missing, a] = await cache.get(
        [key('bob@example.com'), key('carol@example.com'), key('alice@example.com')],
        2000,
      );
      expect(missing).toBeUndefined();
      expect(a).toEqual({
        result: alice,
        cachedAt: 1000,
        expiresAt: 1000 + DEFAULT_RESULT_CACHE_TTLS.deliverable * 1000,
      });
      expect(b).toEqual({
        result: bob,
        cachedAt: 1000,
        expiresAt: 1000 + DEFAULT_RESULT_CACHE_TTLS.undeliverable * 1000,
      });
    });

    it('never returns an entry at or after its expiry; each state has its own TTL', async () => {
      const cache = await open({ ttlSeconds: { unknown: 60, risky: 3600 } });
      await cache.set(
        [
          { key: key('u@example.com'), result: sampleResult('unknown', 'u@example.com') },
          { key: key('r@example.com'), result: sampleResult('risky', 'r@example.com') },
        ],
        0,
      );
      const at = async (now: number) =>
        (await cache.get([key('u@example.com'), key('r@example.com')], now)).map(
          (entry) => entry !== undefined,
        );
      expect(await at(59_999)).toEqual([true, true]);
      expect(await at(60_000)).toEqual([false, true]);
      expect(await at(3_599_999)).toEqual([false, true]);
      expect(await at(3_600_000)).toEqual([false, false]);
    });

    it('does not store a state whose TTL is 0, and such an answer replaces the older one', async () => {
      const cache = await open({ ttlSeconds: { unknown: 0 } });
      await cache.set([{ key: key('a@example.com'), result: sampleResult('deliverable') }], 0);
      await cache.set([{ key: key('a@example.com'), result: sampleResult('unknown') }], 10);
      expect(await cache.get([key('a@example.com')], 20)).toEqual([undefined]);
    });

    it('replaces an entry, restarting its TTL', async () => {
      const cache = await open({ ttlSeconds: { deliverable: 10 } });
      await cache.set([{ key: key('a@example.com'), result: sampleResult('undeliverable') }], 0);
      await cache.set([{ key: key('a@example.com'), result: sampleResult('deliverable') }], 5000);
      const [entry] = await cache.get([key('a@example.com')], 6000);
      expect(entry?.result.state).toBe('deliverable');
      expect(entry?.cachedAt).toBe(5000);
      expect(entry?.expiresAt).toBe(15_000);
    });

    it('keeps namespaces and variants apart', async () => {
      const cache = await open();
      await cache.set([{ key: key('a@example.com', 'acct_a'), result: sampleResult('deliverable') }], 0);
      await cache.set(
        [{ key: key('a@example.com', 'acct_a', 'probe=0;disposable=1'), result: sampleResult('risky') }],
        0,
      );
      const [other, plain, unprobed, otherVariant] = await cache.get(
        [
          key('a@example.com', 'acct_b'),
          key('a@example.com', 'acct_a'),
          key('a@example.com', 'acct_a', 'probe=0;disposable=1'),
          key('a@example.com', 'acct_a', 'probe=1;disposable=0'),
        ],
        1,
      );
      expect(other).toBeUndefined();
      expect(plain?.result.state).toBe('deliverable');
      expect(unprobed?.result.state).toBe('risky');
      expect(otherVariant).toBeUndefined();
    });

    it('invalidates every variant of an address in one namespace, or in all of them', async () => {
      const cache = await open();
      const entries = [
        { key: key('a@example.com', 'acct_a'), result: sampleResult('deliverable') },
        { key: key('a@example.com', 'acct_a', 'probe=0;disposable=1'), result: sampleResult('deliverable') },
        { key: key('a@example.com', 'acct_b'), result: sampleResult('deliverable') },
        { key: key('b@example.com', 'acct_a'), result: sampleResult('deliverable') },
      ];
      await cache.set(entries, 0);
      expect(await cache.invalidate('a@example.com', 'acct_a')).toBe(2);
      expect(
        (
          await cache.get(
            entries.map((entry) => entry.key),
            1,
          )
        ).map(Boolean),
      ).toEqual([false, false, true, true]);
      expect(await cache.invalidate('a@example.com', 'acct_a')).toBe(0);
      await cache.set(entries, 2);
      expect(await cache.invalidate('a@example.com')).toBe(3);
      expect(
        (
          await cache.get(
            entries.map((entry) => entry.key),
            3,
          )
        ).map(Boolean),
      ).toEqual([false, false, false, true]);
    });

    it('hands out copies: changing a returned result does not change the cache', async () => {
      const cache = await open();
      await cache.set([{ key: key('a@example.com'), result: sampleResult('deliverable') }], 0);
      const [first] = await cache.get([key('a@example.com')], 1);
      first?.result.reasons.push('changed');
      const [second] = await cache.get([key('a@example.com')], 1);
      expect(second?.result.reasons).toEqual([]);
    });

    it('refuses bad TTLs with a message naming the state', async () => {
      await expect(async () => open({ ttlSeconds: { unknown: -1 } })).rejects.toThrow(
        'ttlSeconds.unknown must be a number of seconds >= 0, got -1',
      );
      await expect(async () =>
        open({ ttlSeconds: { valid: 5 } as unknown as ResultCacheOptions['ttlSeconds'] }),
      ).rejects.toThrow('ttlSeconds.valid is not a verification state');
    });
  });
}
