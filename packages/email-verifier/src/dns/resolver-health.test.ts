import { describe, expect, it } from 'vitest';
import { DnsQueryError, type DnsResolver } from './resolver.js';
import { createResolverHealth, DEFAULT_DNS_CANARIES } from './resolver-health.js';

/** A resolver whose answer for each name the test sets; counts the questions. */
function scriptedResolver(initial: Record<string, 'ok' | 'NXDOMAIN' | 'SERVFAIL' | 'timeout' | 'empty'>) {
  const answers = { ...initial };
  const asked: string[] = [];
  const respond = async (name: string, type: 'A' | 'AAAA') => {
    asked.push(`${type} ${name}`);
    const answer = answers[name] ?? 'NXDOMAIN';
    if (answer === 'ok') return { records: [type === 'A' ? '192.0.2.1' : '2001:db8::1'] };
    if (answer === 'empty') return { records: [] };
    const kind = answer === 'NXDOMAIN' ? 'not_found' : answer === 'SERVFAIL' ? 'server_failure' : 'timeout';
    throw new DnsQueryError(kind, name, type);
  };
  const resolver: DnsResolver = {
    name: '127.0.0.1:5353',
    mx: async () => ({ records: [] }),
    a: (name) => respond(name, 'A'),
    aaaa: (name) => respond(name, 'AAAA'),
  };
  return { resolver, answers, asked };
}

function clock() {
  let now = Date.parse('2026-11-27T12:00:00Z');
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('createResolverHealth', () => {
  it('is unchecked until first asked; concurrent callers share one check', async () => {
    const { resolver, asked } = scriptedResolver({ 'a.test': 'ok', 'b.test': 'ok', 'c.test': 'ok' });
    const health = createResolverHealth({
      resolver,
      now: clock().now,
      canaries: ['a.test', 'b.test', 'c.test'],
    });
    const states = await Promise.all(Array.from({ length: 20 }, () => health.trust()));
    expect(states.every((state) => state.status === 'healthy')).toBe(true);
    // One A and one AAAA question per canary, whatever the number of callers.
    expect(asked).toHaveLength(6);
    expect(states[0]?.message).toBe('the DNS resolver 127.0.0.1:5353 resolves the 3 canary names');
  });

  it('is unhealthy when at most half the canaries resolve, naming the resolver and each denial', async () => {
    const { resolver } = scriptedResolver({
      'a.test': 'NXDOMAIN',
      'b.test': 'SERVFAIL',
      'c.test': 'ok',
      'd.test': 'timeout',
    });
    const health = createResolverHealth({
      resolver,
      now: clock().now,
      canaries: ['a.test', 'b.test', 'c.test', 'd.test'],
    });
    const state = await health.trust();
    expect(state.status).toBe('unhealthy');
    expect(state.canaries).toEqual([
      { name: 'a.test', resolved: false, answer: 'NXDOMAIN' },
      { name: 'b.test', resolved: false, answer: 'SERVFAIL' },
      { name: 'c.test', resolved: true, answer: 'resolved' },
      { name: 'd.test', resolved: false, answer: 'no answer' },
    ]);
    expect(state.message).toBe(
      'the DNS resolver 127.0.0.1:5353 denies names that exist (NXDOMAIN for a.test, SERVFAIL for b.test, no answer for d.test), so its negative answers cannot be believed',
    );
  });

  it('stays healthy with a minority of canaries down, and says which', async () => {
    const { resolver } = scriptedResolver({ 'a.test': 'ok', 'b.test': 'ok', 'c.test': 'empty' });
    const health = createResolverHealth({
      resolver,
      now: clock().now,
      canaries: ['a.test', 'b.test', 'c.test'],
    });
    expect(await health.trust()).toMatchObject({
      status: 'healthy',
      message: 'the DNS resolver 127.0.0.1:5353 resolves 2 of 3 canary names (no address for c.test)',
    });
  });

  it('checks an unhealthy resolver again only once the interval has passed, and trusts it again when it recovers', async () => {
    const { resolver, answers, asked } = scriptedResolver({ 'a.test': 'NXDOMAIN' });
    const time = clock();
    let recovered = 0;
    const health = createResolverHealth({
      resolver,
      now: time.now,
      canaries: ['a.test'],
      minIntervalMs: 120_000,
      onRecovered: () => recovered++,
    });
    expect((await health.trust()).status).toBe('unhealthy');
    answers['a.test'] = 'ok';
    time.advance(119_999);
    expect((await health.trust()).status).toBe('unhealthy');
    expect(asked).toHaveLength(2);
    time.advance(1);
    const state = await health.trust();
    expect(state).toMatchObject({ status: 'healthy', checkedAt: time.now() });
    expect(asked).toHaveLength(4);
    expect(recovered).toBe(1);
  });

  it('checks a healthy resolver again after a burst of failed lookups, at most once per interval', async () => {
    const { resolver, answers, asked } = scriptedResolver({ 'a.test': 'ok' });
    const time = clock();
    const health = createResolverHealth({ resolver, now: time.now, canaries: ['a.test'], burst: 3 });
    expect((await health.trust()).status).toBe('healthy');
    answers['a.test'] = 'NXDOMAIN';
    for (let i = 0; i < 3; i++) health.observe(true);
    // The interval since the first check has not passed: no new check yet.
    expect((await health.trust()).status).toBe('healthy');
    expect(asked).toHaveLength(2);
    time.advance(120_000);
    expect((await health.trust()).status).toBe('unhealthy');
    expect(asked).toHaveLength(4);
  });

  it('forgets failures when a lookup succeeds: no burst from failures spread between successes', async () => {
    const { resolver, asked } = scriptedResolver({ 'a.test': 'ok' });
    const time = clock();
    const health = createResolverHealth({ resolver, now: time.now, canaries: ['a.test'], burst: 3 });
    await health.trust();
    time.advance(600_000);
    for (let i = 0; i < 10; i++) {
      health.observe(true);
      health.observe(true);
      health.observe(false);
    }
    await health.trust();
    expect(asked).toHaveLength(2);
  });

  it('snapshot() starts a due check in the background and never waits for it', async () => {
    const { resolver } = scriptedResolver({ 'a.test': 'ok' });
    const health = createResolverHealth({ resolver, now: clock().now, canaries: ['a.test'] });
    expect(health.snapshot()).toMatchObject({
      status: 'unchecked',
      checkedAt: null,
      resolver: '127.0.0.1:5353',
    });
    expect((await health.trust()).status).toBe('healthy');
    expect(health.snapshot().status).toBe('healthy');
  });

  it('treats a backend that throws instead of rejecting as a denial', async () => {
    const resolver: DnsResolver = {
      mx: async () => ({ records: [] }),
      a: () => {
        throw new Error('boom');
      },
      aaaa: () => {
        throw new Error('boom');
      },
    };
    const health = createResolverHealth({ resolver, now: clock().now, canaries: ['a.test'] });
    expect(await health.trust()).toMatchObject({
      status: 'unhealthy',
      resolver: 'unnamed',
      canaries: [{ name: 'a.test', resolved: false, answer: 'error (boom)' }],
    });
  });

  it('defaults to names of the internet registries, and refuses bad options by name', () => {
    expect(DEFAULT_DNS_CANARIES).toEqual(['iana.org', 'ietf.org', 'icann.org']);
    const { resolver } = scriptedResolver({});
    const make = (options: object) => () => createResolverHealth({ resolver, now: Date.now, ...options });
    expect(make({ canaries: [] })).toThrow('resolverHealth.canaries must list 1 to 20 names');
    expect(make({ canaries: ['not a name'] })).toThrow(
      'resolverHealth.canaries: "not a name" is not a host name',
    );
    expect(make({ minIntervalMs: -1 })).toThrow('resolverHealth.minIntervalMs');
    expect(make({ burst: 0 })).toThrow('resolverHealth.burst');
  });
});
