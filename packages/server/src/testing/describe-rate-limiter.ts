import { describe, expect, it } from 'vitest';
import type { BucketSpec, RateLimiter } from '../limiter/limiter.js';

/**
 * The conformance suite of the RateLimiter seam: every limiter (memory today, Redis with the
 * scale-out issue) must pass it. `create` returns a fresh, empty limiter.
 */
export function describeRateLimiter(name: string, create: () => RateLimiter | Promise<RateLimiter>): void {
  describe(`RateLimiter conformance: ${name}`, () => {
    const free: BucketSpec = { ratePerSecond: 1, burst: 10 };
    const t0 = 1_700_000_000_000;

    it('a new bucket is full: burst requests pass at once, the next is refused', async () => {
      const limiter = await create();
      for (let i = 0; i < 10; i++) {
        const decision = await limiter.take('acct_a', free, t0);
        expect(decision).toMatchObject({ allowed: true, limit: 10, remaining: 9 - i, retryAfterSeconds: 0 });
      }
      const refused = await limiter.take('acct_a', free, t0);
      expect(refused).toEqual({
        allowed: false,
        limit: 10,
        remaining: 0,
        resetSeconds: 10,
        retryAfterSeconds: 1,
      });
      await limiter.close();
    });

    it('refills at the rate: after 1 s one more request passes; reset counts seconds to full', async () => {
      const limiter = await create();
      for (let i = 0; i < 10; i++) await limiter.take('acct_a', free, t0);
      expect((await limiter.take('acct_a', free, t0 + 999)).allowed).toBe(false);
      const next = await limiter.take('acct_a', free, t0 + 1000);
      expect(next).toMatchObject({ allowed: true, remaining: 0, resetSeconds: 10 });
      const later = await limiter.take('acct_a', free, t0 + 5000);
      expect(later).toMatchObject({ allowed: true, remaining: 3, resetSeconds: 7 });
      await limiter.close();
    });

    it('never holds more than the burst, however long it rested', async () => {
      const limiter = await create();
      await limiter.take('acct_a', free, t0);
      const rested = await limiter.take('acct_a', free, t0 + 3_600_000);
      expect(rested).toMatchObject({ allowed: true, remaining: 9, resetSeconds: 1 });
      await limiter.close();
    });

    it('keys are independent buckets', async () => {
      const limiter = await create();
      for (let i = 0; i < 10; i++) await limiter.take('acct_a', free, t0);
      expect((await limiter.take('acct_a', free, t0)).allowed).toBe(false);
      expect(await limiter.take('acct_b', free, t0)).toMatchObject({ allowed: true, remaining: 9 });
      await limiter.close();
    });

    it('Retry-After is the whole seconds until the cost fits, at least 1', async () => {
      const limiter = await create();
      const slow: BucketSpec = { ratePerSecond: 0.25, burst: 2 };
      await limiter.take('k', slow, t0);
      await limiter.take('k', slow, t0);
      expect(await limiter.take('k', slow, t0)).toMatchObject({ allowed: false, retryAfterSeconds: 4 });
      const fast: BucketSpec = { ratePerSecond: 1000, burst: 1 };
      await limiter.take('f', fast, t0);
      expect(await limiter.take('f', fast, t0)).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
      await limiter.close();
    });

    it('cost > 1 takes that many; a refused take takes nothing', async () => {
      const limiter = await create();
      expect(await limiter.take('k', free, t0, 7)).toMatchObject({ allowed: true, remaining: 3 });
      expect(await limiter.take('k', free, t0, 4)).toMatchObject({ allowed: false, remaining: 3 });
      expect(await limiter.take('k', free, t0, 3)).toMatchObject({ allowed: true, remaining: 0 });
      await limiter.close();
    });

    it('cost 0 looks without taking: allowed while a whole token is left', async () => {
      const limiter = await create();
      expect(await limiter.take('k', free, t0, 0)).toMatchObject({ allowed: true, remaining: 10 });
      await limiter.take('k', free, t0, 10);
      expect(await limiter.take('k', free, t0, 0)).toMatchObject({ allowed: false, remaining: 0 });
      expect(await limiter.take('k', free, t0 + 1000, 0)).toMatchObject({ allowed: true, remaining: 1 });
      expect(await limiter.take('k', free, t0 + 1000, 0)).toMatchObject({ allowed: true, remaining: 1 });
      await limiter.close();
    });

    it('a clock that steps back refills nothing and takes nothing extra', async () => {
      const limiter = await create();
      await limiter.take('k', free, t0 + 10_000, 10);
      expect(await limiter.take('k', free, t0)).toMatchObject({ allowed: false, remaining: 0 });
      await limiter.close();
    });

    it('takeSync, where a limiter has it, answers as take does from the same buckets', async () => {
      const limiter = await create();
      const takeSync = limiter.takeSync?.bind(limiter);
      if (takeSync) {
        for (let i = 0; i < 5; i++) await limiter.take('acct_a', free, t0);
        expect(takeSync('acct_a', free, t0)).toMatchObject({ allowed: true, remaining: 4 });
        expect(takeSync('acct_a', free, t0, 0)).toMatchObject({ allowed: true, remaining: 4 });
        for (let i = 0; i < 4; i++) takeSync('acct_a', free, t0);
        expect(await limiter.take('acct_a', free, t0)).toEqual(takeSync('acct_a', free, t0));
        expect(takeSync('acct_a', free, t0 + 1000)).toMatchObject({ allowed: true, remaining: 0 });
        expect(() => takeSync('k', { ratePerSecond: 0, burst: 1 }, t0)).toThrow(/ratePerSecond/);
      }
      await limiter.close();
    });

    it('refuses a bucket shape or cost that cannot work, naming it', async () => {
      const limiter = await create();
      await expect(limiter.take('k', { ratePerSecond: 0, burst: 1 }, t0)).rejects.toThrow(/ratePerSecond/);
      await expect(limiter.take('k', { ratePerSecond: 1, burst: 0 }, t0)).rejects.toThrow(/burst/);
      await expect(limiter.take('k', free, t0, -1)).rejects.toThrow(/cost/);
      await limiter.close();
    });
  });
}
