import { describe, expect, it } from 'vitest';
import { HostLimiter } from './host-limiter.js';

const never = new AbortController().signal;

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

describe('HostLimiter', () => {
  it('runs at most perHost tasks per host, others in order, hosts independent', async () => {
    const limiter = new HostLimiter(1);
    const first = gate();
    const order: string[] = [];
    const a = limiter.run('a.test', never, async () => {
      await first.opened;
      order.push('a1');
    });
    const b = limiter.run('a.test', never, async () => {
      order.push('a2');
    });
    await limiter.run('b.test', never, async () => {
      order.push('b1'); // another host is not held up
    });
    expect(limiter.active('a.test')).toBe(1);
    first.open();
    await Promise.all([a, b]);
    expect(order).toEqual(['b1', 'a1', 'a2']);
    expect(limiter.active('a.test')).toBe(0);
  });

  it('a waiter whose signal aborts leaves the queue with the abort reason and never runs', async () => {
    const limiter = new HostLimiter(1);
    const first = gate();
    const running = limiter.run('a.test', never, () => first.opened);
    const controller = new AbortController();
    let ran = false;
    const waiting = limiter.run('a.test', controller.signal, async () => {
      ran = true;
    });
    controller.abort(new Error('gave up'));
    await expect(waiting).rejects.toThrow('gave up');
    first.open();
    await running;
    await limiter.run('a.test', never, async () => {});
    expect(ran).toBe(false);
    expect(limiter.active('a.test')).toBe(0);
  });
});
