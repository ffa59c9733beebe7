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

  it('refuses a maxBuckets that is not a positive integer', () => {
    expect(() => createMemoryRateLimiter({ maxBuckets: 0 })).toThrow(
      'maxBuckets must be a positive integer, got 0',
    );
  });
});
