import { promises as dns } from 'node:dns';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeDnsServer, startDnsServer } from './index.js';

// Negative and broken answers as node:dns reports them, plus slow and missing replies.
let server: FakeDnsServer;

function resolverFor(target: FakeDnsServer, timeout = 2000): dns.Resolver {
  const resolver = new dns.Resolver({ timeout, tries: 1 });
  resolver.setServers([target.address]);
  return resolver;
}

async function elapsed(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

beforeAll(async () => {
  server = await startDnsServer({
    zones: {
      'example.test': { A: ['127.0.0.2'] },
      'gone.test': 'NXDOMAIN',
      'broken.test': 'SERVFAIL',
      'refused.test': 'REFUSED',
      'blackhole.test': 'NO_ANSWER',
      'slow.test': { A: ['127.0.0.9'], delayMs: 300 },
      'half.test': { A: ['127.0.0.10'], fail: { MX: 'SERVFAIL', AAAA: 'NO_ANSWER' } },
      'alias-to-gone.test': { CNAME: 'gone.test' },
      'alias-to-broken.test': { CNAME: 'broken.test' },
    },
  });
});

afterAll(() => server.close());

describe('negative and failed answers through node:dns', () => {
  it('answers NXDOMAIN (ENOTFOUND) for names absent from the zones and for NXDOMAIN entries', async () => {
    const resolver = resolverFor(server);
    await expect(resolver.resolve4('absent.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await expect(resolver.resolveMx('gone.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it('answers NODATA (ENODATA) for a name without records of the asked type', async () => {
    await expect(resolverFor(server).resolveMx('example.test')).rejects.toMatchObject({ code: 'ENODATA' });
  });

  it('answers SERVFAIL (ESERVFAIL) and REFUSED (EREFUSED)', async () => {
    const resolver = resolverFor(server);
    await expect(resolver.resolveMx('broken.test')).rejects.toMatchObject({ code: 'ESERVFAIL' });
    await expect(resolver.resolve4('refused.test')).rejects.toMatchObject({ code: 'EREFUSED' });
  });

  it('fails only the types listed in `fail`', async () => {
    const resolver = resolverFor(server, 300);
    expect(await resolver.resolve4('half.test')).toEqual(['127.0.0.10']);
    await expect(resolver.resolveMx('half.test')).rejects.toMatchObject({ code: 'ESERVFAIL' });
    await expect(resolver.resolve6('half.test')).rejects.toMatchObject({ code: 'ETIMEOUT' });
  });

  it('carries the rcode of the end of a CNAME chain', async () => {
    const resolver = resolverFor(server);
    await expect(resolver.resolve4('alias-to-gone.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await expect(resolver.resolve4('alias-to-broken.test')).rejects.toMatchObject({ code: 'ESERVFAIL' });
  });

  it('delays the answer of a slow name by its delayMs', async () => {
    const resolver = resolverFor(server);
    let addresses: string[] = [];
    const slow = await elapsed(async () => {
      addresses = await resolver.resolve4('slow.test');
    });
    expect(addresses).toEqual(['127.0.0.9']);
    expect(slow).toBeGreaterThanOrEqual(295);
    // A name without delay is not held back by the slow one: asked together, it answers first.
    const answered: string[] = [];
    await Promise.all(
      ['slow.test', 'example.test'].map((name) => resolver.resolve4(name).then(() => answered.push(name))),
    );
    expect(answered).toEqual(['example.test', 'slow.test']);
  });

  it('never answers a NO_ANSWER name, so the client times out (ETIMEOUT)', async () => {
    server.resetRecords();
    await expect(resolverFor(server, 200).resolve4('blackhole.test')).rejects.toMatchObject({
      code: 'ETIMEOUT',
    });
    expect(server.queries.map((q) => [q.name, q.outcome])).toEqual([['blackhole.test', 'NO_ANSWER']]);
  });
});

describe('defaultDelayMs', () => {
  it('delays every answer, NXDOMAIN included, unless the name sets its own delay', async () => {
    const delayed = await startDnsServer({
      defaultDelayMs: 250,
      zones: { 'fast.test': { A: ['127.0.0.2'], delayMs: 0 } },
    });
    try {
      const resolver = resolverFor(delayed);
      const missing = await elapsed(() =>
        expect(resolver.resolve4('absent.test')).rejects.toMatchObject({ code: 'ENOTFOUND' }),
      );
      expect(missing).toBeGreaterThanOrEqual(245);
      // The name with its own delay of 0 is not held back: asked together, it answers first.
      const answered: string[] = [];
      await Promise.all([
        resolver.resolve4('absent.test').catch(() => answered.push('absent.test')),
        resolver.resolve4('fast.test').then(() => answered.push('fast.test')),
      ]);
      expect(answered).toEqual(['fast.test', 'absent.test']);
    } finally {
      await delayed.close();
    }
  });
});
