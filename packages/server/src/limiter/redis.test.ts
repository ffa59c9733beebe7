import { randomBytes } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { type RedisClient, ServiceError } from '@svc/core';
import { closedPort, REDIS, serviceUrl } from '@svc/testkit';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, expectTypeOf, it } from 'vitest';
import { describeRateLimiter } from '../testing/describe-rate-limiter.js';
import type { BucketSpec } from './limiter.js';
import { createRedisRateLimiter } from './redis.js';

const url = await serviceUrl(REDIS, 'the Redis rate limiter');

// @svc/core declares RedisClient so no published .d.ts imports ioredis (an optional peer); the
// typecheck fails here the day ioredis' client stops fitting it.
it("ioredis' Redis is assignable to @svc/core's RedisClient", () => {
  expectTypeOf<Redis>().toExtend<RedisClient>();
  const client: RedisClient = new Redis({ lazyConnect: true });
  client.disconnect();
});

describe.skipIf(!url)('Redis rate limiter', () => {
  const redisUrl = url as string;
  // Every test file (and every limiter in the suite) gets its own prefix on the shared server.
  const root = `svc:t:${randomBytes(6).toString('hex')}:`;
  let n = 0;
  const freshPrefix = () => `${root}${++n}:`;
  const admin = new Redis(redisUrl, { lazyConnect: true });
  afterAll(async () => {
    const keys = await admin.keys(`${root}*`);
    if (keys.length > 0) await admin.del(...keys);
    await admin.quit();
  });

  describeRateLimiter('Redis', () => createRedisRateLimiter({ url: redisUrl, prefix: freshPrefix() }));

  const t0 = 1_700_000_000_000;
  const free: BucketSpec = { ratePerSecond: 1, burst: 10 };

  it('shares one bucket between limiters on two connections (two API processes)', async () => {
    const prefix = freshPrefix();
    const one = await createRedisRateLimiter({ url: redisUrl, prefix });
    const two = await createRedisRateLimiter({ url: redisUrl, prefix });
    for (let i = 0; i < 6; i++) expect((await one.take('acct_a', free, t0)).allowed).toBe(true);
    expect(await two.take('acct_a', free, t0)).toMatchObject({ allowed: true, remaining: 3 });
    for (let i = 0; i < 3; i++) expect((await two.take('acct_a', free, t0)).allowed).toBe(true);
    expect(await one.take('acct_a', free, t0)).toMatchObject({
      allowed: false,
      remaining: 0,
      retryAfterSeconds: 1,
    });
    // The refill is shared too: one second later either process gets exactly one more.
    expect((await two.take('acct_a', free, t0 + 1000)).allowed).toBe(true);
    expect((await one.take('acct_a', free, t0 + 1000)).allowed).toBe(false);
    await one.close();
    await two.close();
  });

  it('never hands out more than the burst to concurrent takes from both connections', async () => {
    const prefix = freshPrefix();
    const one = await createRedisRateLimiter({ url: redisUrl, prefix });
    const two = await createRedisRateLimiter({ url: redisUrl, prefix });
    const spec: BucketSpec = { ratePerSecond: 0.001, burst: 50 };
    const decisions = await Promise.all(
      Array.from({ length: 200 }, (_, i) => (i % 2 ? one : two).take('acct_busy', spec, t0 + (i % 7))),
    );
    // 7 ms of refill at 0.001/s is far below one token: exactly the burst passes.
    expect(decisions.filter((d) => d.allowed)).toHaveLength(50);
    // Each allowed take saw a different count left: the take is atomic.
    expect(new Set(decisions.filter((d) => d.allowed).map((d) => d.remaining)).size).toBe(50);
    await one.close();
    await two.close();
  });

  it('lets an idle bucket expire once it would be full again, plus idleTtlSeconds', async () => {
    const prefix = freshPrefix();
    const limiter = await createRedisRateLimiter({ url: redisUrl, prefix, idleTtlSeconds: 30 });
    await limiter.take('acct_a', free, t0, 4);
    // 4 tokens missing at 1/s: full in 4 s, kept 30 s more.
    const ttl = await admin.pttl(`${prefix}acct_a`);
    expect(ttl).toBeGreaterThan(33_000);
    expect(ttl).toBeLessThanOrEqual(34_000);
    const quick = await createRedisRateLimiter({ url: redisUrl, prefix, idleTtlSeconds: 0 });
    await quick.take('fast', { ratePerSecond: 1000, burst: 1 }, t0);
    // Full again after a millisecond: Redis expires it on its own clock (polled, not slept on).
    await expect.poll(() => admin.exists(`${prefix}fast`), { timeout: 5_000 }).toBe(0);
    await limiter.close();
    await quick.close();
  });

  it('uses a client it is given and leaves it open on close', async () => {
    const prefix = freshPrefix();
    const client = new Redis(redisUrl);
    const limiter = await createRedisRateLimiter({ client, prefix });
    expect(await limiter.take('k', free, t0, 3)).toMatchObject({ allowed: true, remaining: 7 });
    await limiter.close();
    await expect(limiter.take('k', free, t0)).rejects.toThrow('the Redis rate limiter is closed');
    expect(await client.hget(`${prefix}k`, 'tokens')).toBe('7');
    await client.quit();
  });

  it('says which Redis it cannot reach at start, without the password', async () => {
    const port = await closedPort();
    await expect(createRedisRateLimiter({ url: `redis://:hunter2@127.0.0.1:${port}` })).rejects.toThrow(
      `the Redis rate limiter cannot reach redis://:***@127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}`,
    );
  });

  it('when Redis goes away: refuses by default (a retryable 500), or allows when told, and recovers', async () => {
    const proxy = await startProxy(new URL(redisUrl));
    const prefix = freshPrefix();
    const seen: Error[] = [];
    const closedLimiter = await createRedisRateLimiter({
      url: `redis://127.0.0.1:${proxy.port}`,
      prefix,
      timeoutMs: 300,
      onUnavailable: (error) => seen.push(error),
    });
    const openLimiter = await createRedisRateLimiter({
      url: `redis://127.0.0.1:${proxy.port}`,
      prefix,
      timeoutMs: 300,
      whenUnavailable: 'allow',
    });
    expect(await closedLimiter.take('acct_a', free, t0, 5)).toMatchObject({ allowed: true, remaining: 5 });
    await proxy.stop();

    // Refused whether the lost connection is seen (no offline queue) or hangs (timeoutMs ends the
    // command); a take that waited for Redis would never end (no timing asserted).
    const refused = await closedLimiter.take('acct_a', free, t0).catch((error: unknown) => error);
    expect(ServiceError.is(refused)).toBe(true);
    expect(refused).toMatchObject({
      code: 'internal_error',
      status: 500,
      retryable: true,
      message: 'the rate limiter is unavailable; retry shortly',
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.message).toMatch(
      new RegExp(`^the Redis rate limiter could not use redis://127\\.0\\.0\\.1:${proxy.port}: `),
    );
    // Fail open: the request passes and its headers show a full bucket.
    expect(await openLimiter.take('acct_a', free, t0)).toEqual({
      allowed: true,
      limit: 10,
      remaining: 9,
      resetSeconds: 1,
      retryAfterSeconds: 0,
    });

    // Redis back on the same address: the next takes use the bucket again (5 were left).
    await proxy.restart();
    const deadline = Date.now() + 8_000;
    let back = await closedLimiter.take('acct_a', free, t0).catch(() => null);
    while (back === null && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      back = await closedLimiter.take('acct_a', free, t0).catch(() => null);
    }
    expect(back).toMatchObject({ allowed: true, remaining: 4 });
    await closedLimiter.close();
    await openLimiter.close();
    await proxy.stop();
  });

  it('refuses options that cannot work, naming them', async () => {
    await expect(createRedisRateLimiter({})).rejects.toThrow(
      'the Redis rate limiter needs `url` (redis://…) or `client`',
    );
    await expect(createRedisRateLimiter({ url: redisUrl, idleTtlSeconds: -1 })).rejects.toThrow(
      'idleTtlSeconds must be a number ≥ 0, got -1',
    );
    await expect(createRedisRateLimiter({ url: redisUrl, timeoutMs: 0.5 })).rejects.toThrow(
      'timeoutMs must be a whole number ≥ 1, got 0.5',
    );
    await expect(
      createRedisRateLimiter({ url: redisUrl, whenUnavailable: 'maybe' as 'allow' }),
    ).rejects.toThrow(`whenUnavailable must be 'refuse' or 'allow', got "maybe"`);
  });
});

/** A TCP proxy to Redis that can be cut (every connection dropped, the port closed) and restored. */
async function startProxy(target: URL) {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const listen = async () => {
    server = createServer((inbound) => {
      const outbound = connect(Number(target.port || 6379), target.hostname || '127.0.0.1');
      for (const socket of [inbound, outbound]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => {});
      }
      inbound.pipe(outbound).pipe(inbound);
    });
    await new Promise<void>((resolve) => (server as Server).listen(port, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  };
  await listen();
  return {
    get port() {
      return port;
    },
    async stop() {
      for (const socket of sockets) socket.destroy();
      if (server?.listening) await new Promise((resolve) => server?.close(resolve));
    },
    restart: listen,
  };
}
