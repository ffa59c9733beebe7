import { describe, expect, it, vi } from 'vitest';
import { mxProvider } from '../providers/mail-providers.js';
import { directSocket } from './connection.js';
import { resolveProxyPool } from './proxy-options.js';
import { type PoolProxy, ProxyPool, type ProxyPoolEvent } from './proxy-pool.js';

const proxy = (label: string, providers: string[] = [], perHostConcurrency = 2): PoolProxy => ({
  label,
  socketFactory: directSocket,
  providers: new Set(providers),
  perHostConcurrency,
  sessionsPerMinute: 0,
});
const cooldown = { initialMs: 1000, factor: 2, maxMs: 5000 };

describe('mxProvider', () => {
  it.each([
    ['aspmx.l.google.com', 'google'],
    ['ALT1.ASPMX.L.GOOGLE.COM.', 'google'],
    ['example-com.mail.protection.outlook.com', 'microsoft'],
    ['mta5.am0.yahoodns.net', 'yahoo'],
    ['mx01.mail.icloud.com', 'apple'],
    ['mx0a-001.pphosted.com', 'proofpoint'],
    ['mx.example.com', null],
    ['notgoogle.com', null],
  ])('%s → %s', (host, provider) => expect(mxProvider(host)).toBe(provider));
});

describe('ProxyPool', () => {
  it('round-robin takes every proxy in turn and skips the busy ones', () => {
    const [a, b, c] = [proxy('a'), proxy('b'), proxy('c')];
    const pool = new ProxyPool([a, b, c], 'round-robin', cooldown, () => 0);
    expect([1, 2, 3, 4].map(() => pool.choose(null)?.label)).toEqual(['a', 'b', 'c', 'a']);
    expect(pool.choose('google', (p) => p === b)?.label).toBe('c');
    // All busy: the next in turn, whose slot the caller waits for.
    expect(pool.choose(null, () => true)?.label).toBe('a');
  });

  it('per-provider sends a provider to its pinned proxies, everyone else to the unpinned ones', () => {
    const g = proxy('g', ['google']);
    const m = proxy('m', ['microsoft']);
    const [x, y] = [proxy('x'), proxy('y')];
    const pool = new ProxyPool([g, m, x, y], 'per-provider', cooldown, () => 0);
    expect([1, 2].map(() => pool.choose('google')?.label)).toEqual(['g', 'g']);
    expect(pool.choose('microsoft')?.label).toBe('m');
    expect([1, 2, 3].map(() => pool.choose(null)?.label)).toEqual(['x', 'y', 'x']);
    expect(pool.choose('yahoo')?.label).toBe('x');
  });

  it('takes a failed proxy out for a cool-down growing with failures in a row, up to the maximum', () => {
    let now = 0;
    const events: ProxyPoolEvent[] = [];
    const [a, b] = [proxy('a', ['google']), proxy('b')];
    const pool = new ProxyPool(
      [a, b],
      'per-provider',
      cooldown,
      () => now,
      (event) => events.push(event),
    );
    pool.failed(a, 'SOCKS5 proxy 127.0.0.1:1: general failure');
    // Its pinned provider falls back to the unpinned proxies meanwhile.
    expect(pool.choose('google')?.label).toBe('b');
    // A second report of the same outage (another session under way) does not lengthen it.
    pool.failed(a, 'again');
    now = 999;
    expect(pool.isAvailable(a)).toBe(false);
    now = 1000;
    expect(pool.choose('google')?.label).toBe('a');
    pool.failed(a, 'second');
    now = 2999;
    expect(pool.isAvailable(a)).toBe(false);
    now = 3000;
    expect(pool.isAvailable(a)).toBe(true);
    for (const step of [4000, 5000]) {
      pool.failed(a, 'more');
      now += step;
      expect(pool.isAvailable(a), String(step)).toBe(true);
    }
    pool.failed(a, 'capped');
    now += 5000;
    expect(pool.isAvailable(a)).toBe(true);
    expect(events.map((event) => [event.state, event.failures])).toEqual([
      ['out', 1],
      ['out', 2],
      ['out', 3],
      ['out', 4],
      ['out', 5],
    ]);
    pool.succeeded(a);
    expect(events.at(-1)).toEqual({ proxy: 'a', state: 'back', failures: 0, until: null, error: null });
    pool.failed(a, 'fresh streak');
    now += 999;
    expect(pool.isAvailable(a)).toBe(false);
    now += 1;
    expect(pool.isAvailable(a)).toBe(true);
  });

  it('paces sessions per (proxy, MX address): booked in turn, each waiting for its time', async () => {
    // The pace waits on timers and performance.now(): vitest's fake clock runs both, so the
    // starts are exact and nothing waits on real time.
    vi.useFakeTimers();
    try {
      const paced = { ...proxy('p'), sessionsPerMinute: 1200 }; // one per 50 ms
      const pool = new ProxyPool([paced], 'round-robin', cooldown, () => 0);
      const signal = new AbortController().signal;
      const started = performance.now();
      const at: number[] = [];
      const all = Promise.all(
        [0, 1, 2].map(async () => {
          await pool.pace(paced, '192.0.2.1', signal);
          at.push(performance.now() - started);
        }),
      );
      await vi.advanceTimersByTimeAsync(49);
      expect(at).toEqual([0]);
      await vi.advanceTimersByTimeAsync(51);
      await all;
      expect(at).toEqual([0, 50, 100]);
      expect(pool.paceDelay(paced, '192.0.2.1')).toBe(50);
      // Another MX address has its own pace; an aborted wait ends at once, with no time passing.
      expect(pool.paceDelay(paced, '192.0.2.2')).toBe(0);
      const abort = new AbortController();
      const waiting = pool.pace(paced, '192.0.2.1', abort.signal);
      abort.abort();
      await waiting;
      expect(performance.now() - started).toBe(100);
    } finally {
      vi.useRealTimers();
    }
  });

  it('answers null when every candidate is out, and says why', () => {
    const [a, b] = [proxy('a'), proxy('b')];
    const pool = new ProxyPool([a, b], 'round-robin', cooldown, () => 0);
    pool.failed(a, 'connect ECONNREFUSED');
    pool.failed(b, 'no answer from the proxy (handshake)');
    expect(pool.choose(null)).toBeNull();
    expect(pool.describeOutage(null)).toBe(
      'no SOCKS5 proxy available; out after failing: a: connect ECONNREFUSED; b: no answer from the proxy (handshake)',
    );
    expect(pool.status().map((s) => [s.proxy, s.available, s.failures])).toEqual([
      ['a', false, 1],
      ['b', false, 1],
    ]);
  });
});

describe('resolveProxyPool', () => {
  const resolve = (smtp: Parameters<typeof resolveProxyPool>[0]) => resolveProxyPool(smtp, 2, () => 0);

  it('labels proxies by host:port (never credentials) and makes the single proxy a pool of one', () => {
    const pool = resolve({
      proxies: [
        { url: 'socks5://user:p%40ss@127.0.0.1:1080' },
        { url: 'socks5://[::1]:1081', perHostConcurrency: 1 },
        { url: 'socks5://10.0.0.1', label: 'eu-1', providers: ['google'] },
      ],
    });
    expect(pool?.proxies.map((p) => [p.label, p.perHostConcurrency, [...p.providers]])).toEqual([
      ['127.0.0.1:1080', 2, []],
      ['[::1]:1081', 1, []],
      ['eu-1', 2, ['google']],
    ]);
    expect(
      resolve({ proxy: { host: '127.0.0.1', port: 9050, username: 'u', password: 'p' } })?.proxies[0]?.label,
    ).toBe('127.0.0.1:9050');
    expect(resolve({})).toBeNull();
  });

  it.each([
    [
      { proxy: { host: '127.0.0.1', port: 1 }, proxies: [{ url: 'socks5://127.0.0.1:2' }] },
      'set smtp.proxy or smtp.proxies, not both',
    ],
    [{ proxies: [] }, 'smtp.proxies must be a list of 1..100 proxies'],
    [
      { proxies: [{ url: 'http://u:secret@127.0.0.1:8080' }] },
      'smtp.proxies[0].url must use the socks5:// scheme, got http://',
    ],
    [
      { proxies: [{ url: 'not a url secret' }] },
      'smtp.proxies[0].url must look like socks5://[user:password@]host:port',
    ],
    [{ proxies: [{ url: 'socks5://127.0.0.1:1/x' }] }, 'nothing after the port'],
    [
      { proxies: [{ url: 'socks5://127.0.0.1:1', providers: ['gmail'] }] },
      'unknown provider "gmail" (known: amazon_ses, apple, barracuda,',
    ],
    [
      {
        proxySelection: 'round-robin' as const,
        proxies: [{ url: 'socks5://127.0.0.1:1', providers: ['google'] }],
      },
      "only proxySelection 'per-provider' does",
    ],
    [
      { proxySelection: 'random' as never, proxies: [{ url: 'socks5://127.0.0.1:1' }] },
      'smtp.proxySelection must be per-provider or round-robin',
    ],
    [
      { proxies: [{ url: 'socks5://127.0.0.1:1' }, { url: 'socks5://127.0.0.1:1' }] },
      'smtp.proxies[1]: the label 127.0.0.1:1 is used twice',
    ],
    [
      { proxies: [{ url: 'socks5://127.0.0.1:1', perHostConcurrency: 0 }] },
      'smtp.proxies[0].perHostConcurrency must be a positive integer',
    ],
    [
      { proxies: [{ url: 'socks5://127.0.0.1:1', host: 'x' } as never] },
      'smtp.proxies[0]: unknown field "host"',
    ],
    [
      { proxies: [{ url: 'socks5://127.0.0.1:1' }], proxyCooldown: { initialMs: -1 } },
      'smtp.proxyCooldown.initialMs must be a number ≥ 0',
    ],
    [
      { proxies: [{ url: 'socks5://127.0.0.1:1' }], proxyCooldown: { factor: 0.5 } },
      'smtp.proxyCooldown.factor must be a number ≥ 1',
    ],
  ])('refuses %j', (smtp, message) => {
    let error: unknown;
    try {
      resolve(smtp as Parameters<typeof resolveProxyPool>[0]);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toContain(message);
    expect((error as Error).message).not.toContain('secret');
  });
});
