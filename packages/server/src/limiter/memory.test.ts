import { describe, expect, it } from 'vitest';
import { describeRateLimiter } from '../testing/describe-rate-limiter.js';
import { createMemoryRateLimiter } from './memory.js';

describeRateLimiter('memory', () => createMemoryRateLimiter());

describe('memory limiter', () => {
  it('keeps at most maxBuckets, dropping the least recently used', async () => {
    const limiter = createMemoryRateLimiter({ maxBuckets: 2 });
    const spec = { ratePerSecond: 1, burst: 2 };
    await limiter.take('a', spec, 0, 2);
    await limiter.take('b', spec, 0, 2);
    await limiter.take('a', spec, 0, 0); // touch a: b is now the oldest
    await limiter.take('c', spec, 0, 2);
    expect((await limiter.take('a', spec, 0)).allowed).toBe(false); // kept
    expect((await limiter.take('b', spec, 0)).allowed).toBe(true); // dropped = full again
  });

  it('counts a bucket taken from several times in a row as the most recently used', async () => {
    const limiter = createMemoryRateLimiter({ maxBuckets: 2 });
    const spec = { ratePerSecond: 1, burst: 3 };
    await limiter.take('a', spec, 0, 3);
    await limiter.take('b', spec, 0, 3);
    await limiter.take('a', spec, 0, 0); // a moves to the end
    await limiter.take('a', spec, 0, 0); // a is the end already
    await limiter.take('c', spec, 0, 3); // b, the oldest, is dropped
    expect((await limiter.take('a', spec, 0)).allowed).toBe(false);
    expect((await limiter.take('b', spec, 0)).remaining).toBe(2); // a fresh, full bucket
    // The same bucket in a row keeps its own count: 3 tokens, then none.
    expect((await limiter.take('d', spec, 0)).remaining).toBe(2);
    expect((await limiter.take('d', spec, 0)).remaining).toBe(1);
    expect((await limiter.take('d', spec, 0)).remaining).toBe(0);
    expect((await limiter.take('d', spec, 0)).allowed).toBe(false);
  });

  it('refuses a maxBuckets that is not a positive integer', () => {
    expect(() => createMemoryRateLimiter({ maxBuckets: 0 })).toThrow(
      'maxBuckets must be a positive integer, got 0',
    );
  });
});
