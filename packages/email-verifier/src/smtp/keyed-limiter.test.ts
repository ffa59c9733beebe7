import { describe, expect, it } from 'vitest';
import { KeyedLimiter } from './keyed-limiter.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('KeyedLimiter', () => {
  it('never runs more than perKey for one key or more than global overall', async () => {
    const limiter = new KeyedLimiter(2, 3);
    let peakA = 0;
    let active = 0;
    let peak = 0;
    const running = new Map<string, number>();
    const work = async (key: string) => {
      const release = await limiter.acquire(key);
      running.set(key, (running.get(key) ?? 0) + 1);
      active++;
      peak = Math.max(peak, active);
      if (key === 'a') peakA = Math.max(peakA, running.get('a') ?? 0);
      await tick();
      await tick();
      running.set(key, (running.get(key) ?? 0) - 1);
      active--;
      release();
    };
    await Promise.all([
      ...Array.from({ length: 10 }, () => work('a')),
      ...Array.from({ length: 10 }, () => work('b')),
    ]);
    expect(peakA).toBe(2);
    expect(peak).toBe(3);
  });

  it('lets a waiter for another key pass one blocked on a busy key', async () => {
    const limiter = new KeyedLimiter(1, 5);
    const releaseA = await limiter.acquire('a');
    const order: string[] = [];
    const second = limiter.acquire('a').then((release) => {
      order.push('a');
      release();
    });
    const other = limiter.acquire('b').then((release) => {
      order.push('b');
      release();
    });
    await other;
    expect(order).toEqual(['b']);
    releaseA();
    await second;
    expect(order).toEqual(['b', 'a']);
  });

  it('drops an aborted waiter and rejects its promise', async () => {
    const limiter = new KeyedLimiter(1, 1);
    const release = await limiter.acquire('a');
    const controller = new AbortController();
    const waiting = limiter.acquire('a', controller.signal);
    controller.abort(new Error('deadline'));
    await expect(waiting).rejects.toThrow('deadline');
    release();
    const again = await limiter.acquire('a');
    again();
  });

  it('validates its limits', () => {
    expect(() => new KeyedLimiter(0, 1)).toThrow('per-host concurrency must be ≥ 1, got 0');
    expect(() => new KeyedLimiter(1, 1.5)).toThrow('global concurrency must be ≥ 1, got 1.5');
  });
});
