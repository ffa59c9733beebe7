import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import type { ServerContext } from '../context.js';
import type { RateLimiter } from '../limiter/limiter.js';
import { createMemoryRateLimiter } from '../limiter/memory.js';
import { chooseUnreadBodyClose, drainedBodiesBucketKey, unreadBodyCloseFor } from './refused-bodies.js';

/** What chooseUnreadBodyClose reads of the server: the setting, the limiter and the clock. */
function context(limiter: RateLimiter, clock: { now: number }, perMinute = 3): ServerContext {
  return {
    options: { limits: { drainedBodiesPerMinute: perMinute } },
    limiter,
    now: () => clock.now,
  } as unknown as ServerContext;
}

const request = (ip: string, accountId?: string) =>
  ({
    ip,
    clientAddress: { ip },
    auth: accountId ? { account: { id: accountId } } : null,
  }) as unknown as FastifyRequest;

describe('chooseUnreadBodyClose: drain within the budget, hold past it', () => {
  it('counts per account and client address; requests without an account share their address’s bucket', () => {
    const clock = { now: 0 };
    const svc = context(createMemoryRateLimiter(), clock);
    const noisy = request('192.0.2.1', 'acc_1');
    expect([1, 2, 3, 4].map(() => chooseUnreadBodyClose(svc, noisy))).toEqual([
      'drain',
      'drain',
      'drain',
      'hold',
    ]);
    // Another account at the same address, and the same account elsewhere, have their own.
    expect(chooseUnreadBodyClose(svc, request('192.0.2.1', 'acc_2'))).toBe('drain');
    expect(chooseUnreadBodyClose(svc, request('192.0.2.2', 'acc_1'))).toBe('drain');
    expect(drainedBodiesBucketKey(request('192.0.2.1'))).toBe('drained-bodies:unauthenticated:192.0.2.1');
    // 3 a minute: one more after 20 s.
    clock.now += 20_000;
    expect(chooseUnreadBodyClose(svc, noisy)).toBe('drain');
    expect(chooseUnreadBodyClose(svc, noisy)).toBe('hold');
  });

  it('with a limiter that answers later (Redis): the same choices, as promises', async () => {
    const memory = createMemoryRateLimiter();
    const remote: RateLimiter = { take: (...args) => memory.take(...args), close: () => memory.close() };
    const svc = context(remote, { now: 0 }, 1);
    const first = chooseUnreadBodyClose(svc, request('192.0.2.1', 'acc_1'));
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toBe('drain');
    expect(await chooseUnreadBodyClose(svc, request('192.0.2.1', 'acc_1'))).toBe('hold');
  });
});

describe('unreadBodyCloseFor: one choice per request', () => {
  it('asked before the answer (to delay it) and again at the close, a request takes one token of the budget', () => {
    const svc = context(createMemoryRateLimiter(), { now: 0 }, 2);
    const first = request('192.0.2.1', 'acc_1');
    // Asked twice for the same request: the same choice, one token.
    expect([unreadBodyCloseFor(svc, first), unreadBodyCloseFor(svc, first)]).toEqual(['drain', 'drain']);
    // So the next request still has the second token; taken twice each, it would be past the budget.
    expect(unreadBodyCloseFor(svc, request('192.0.2.1', 'acc_1'))).toBe('drain');
    expect(unreadBodyCloseFor(svc, request('192.0.2.1', 'acc_1'))).toBe('hold');
  });
});
