import { importOptionalPeer, type RedisClient, ServiceError, urlWithoutPassword } from '@svc/core';
import type { Redis } from 'ioredis';
import type { BucketSpec, RateDecision, RateLimiter } from './limiter.js';
import { check, decide } from './memory.js';

/** Options of the Redis rate limiter. */
export interface RedisRateLimiterOptions {
  /** `redis://[:password@]host:6379[/db]` (or `rediss://`); one of this and `client` is required. */
  url?: string;
  /** An ioredis client the caller owns: used as it is (not connected or closed by the limiter). */
  client?: RedisClient;
  /** Prefix of every bucket's key, so several services (or tests) share one Redis. @default 'svc:rl:' */
  prefix?: string;
  /**
   * Seconds a bucket is kept after it would be full again; then its key expires (a full bucket
   * and no bucket are the same). The margin covers API processes whose clocks differ a little.
   * @default 60
   */
  idleTtlSeconds?: number;
  /** Milliseconds one take may wait for Redis before it counts as unavailable. @default 1000 */
  timeoutMs?: number;
  /**
   * What a take does when Redis cannot be reached or does not answer in `timeoutMs`: `'refuse'`
   * (fail closed: the request gets 500 `internal_error`, retryable) or `'allow'` (fail open:
   * the request passes unlimited, its headers show a full bucket). Monthly quotas are enforced
   * by the control-plane store either way.
   * @default 'refuse'
   */
  whenUnavailable?: 'refuse' | 'allow';
  /** Called with the cause each time Redis was unavailable for a take (to log it). @default none */
  onUnavailable?: (error: Error) => void;
}

/**
 * One atomic take: refill from the elapsed time (the caller's clock), take `cost` if the bucket
 * has it, store the bucket, expire it once it would be full plus the idle margin. The same
 * arithmetic as the memory limiter, in the same order, so both decide alike. Tokens go back as
 * text: Redis turns a Lua number reply into an integer.
 */
const TAKE_SCRIPT = `
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local cost = tonumber(ARGV[4])
local idle = tonumber(ARGV[5])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = burst
local at = now
if state[1] and state[2] then
  local previous = tonumber(state[2])
  tokens = math.min(burst, tonumber(state[1]) + math.max(0, now - previous) / 1000 * rate)
  at = math.max(now, previous)
end
local allowed = 0
if (cost == 0 and tokens >= 1) or (cost > 0 and tokens >= cost) then allowed = 1 end
if allowed == 1 then tokens = tokens - cost end
local value = string.format('%.17g', tokens)
redis.call('HSET', KEYS[1], 'tokens', value, 'at', string.format('%.17g', at))
redis.call('PEXPIRE', KEYS[1], string.format('%d', math.ceil((burst - tokens) / rate * 1000) + idle))
return { allowed, value }
`;

const COMMAND = 'svcRateLimitTake';
type TakeCommand = (key: string, ...args: string[]) => Promise<[number, string]>;

// Loaded on first use: servers on the memory limiter never need ioredis installed.
async function loadIoredis(): Promise<typeof Redis> {
  const { Redis: Client } = await importOptionalPeer(() => import('ioredis'), {
    user: 'the Redis rate limiter',
    needs: 'ioredis',
    install: 'ioredis',
    from: '@svc/server',
    otherwise: 'an ioredis client passed as the `client` option',
  });
  return Client;
}

function atLeast(name: string, value: number, min: number, integer: boolean): number {
  if (!Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
    throw new TypeError(`${name} must be a ${integer ? 'whole ' : ''}number ≥ ${min}, got ${value}`);
  }
  return value;
}

/**
 * Token buckets in Redis, shared by every API process that uses the same Redis and prefix
 * (issue 13). Each take is one Lua script (EVALSHA, falling back to EVAL when Redis lost the
 * script), so concurrent takes from any number of processes never hand out more than the
 * bucket holds. `now` comes from the caller, as with the memory limiter: the API processes'
 * clocks should be NTP-synchronised; a clock behind the bucket's refills nothing until it
 * catches up, so a skewed process can only allow less, never more. Connects at once: a URL
 * where Redis does not answer is an error here, at start, not on the first request.
 */
export async function createRedisRateLimiter(options: RedisRateLimiterOptions): Promise<RateLimiter> {
  const prefix = options.prefix ?? 'svc:rl:';
  if (typeof prefix !== 'string') throw new TypeError(`prefix must be a string, got ${typeof prefix}`);
  const idleMs = Math.ceil(atLeast('idleTtlSeconds', options.idleTtlSeconds ?? 60, 0, false) * 1000);
  const timeoutMs = atLeast('timeoutMs', options.timeoutMs ?? 1000, 1, true);
  const whenUnavailable = options.whenUnavailable ?? 'refuse';
  if (whenUnavailable !== 'refuse' && whenUnavailable !== 'allow') {
    throw new TypeError(
      `whenUnavailable must be 'refuse' or 'allow', got ${JSON.stringify(whenUnavailable)}`,
    );
  }

  let client: Redis;
  let owned = false;
  let where = 'the given ioredis client';
  let lastError: Error | undefined;
  if (options.client) {
    client = options.client as Redis;
  } else {
    const url = options.url;
    if (typeof url !== 'string' || url === '') {
      throw new TypeError('the Redis rate limiter needs `url` (redis://…) or `client`');
    }
    where = urlWithoutPassword(url);
    const IORedis = await loadIoredis();
    client = new IORedis(url, {
      lazyConnect: true,
      // A take never waits for a reconnection, and one that failed never runs later: no offline
      // queue (a queued take would take a token after its request was already answered), no
      // resending a take that may have run. The client keeps reconnecting in the background.
      enableOfflineQueue: false,
      autoResendUnfulfilledCommands: false,
      maxRetriesPerRequest: 0,
      commandTimeout: timeoutMs,
      connectTimeout: Math.max(timeoutMs, 2000),
      retryStrategy: (times) => Math.min(times * 200, 2000),
    });
    owned = true;
    // The socket's error ('connect ECONNREFUSED …') is only emitted here; keep it for messages.
    client.on('error', (error: Error) => {
      lastError = error;
    });
    try {
      await client.connect();
    } catch (error) {
      client.disconnect();
      const cause = lastError ?? (error as Error);
      throw new Error(`the Redis rate limiter cannot reach ${where}: ${cause.message}`, { cause });
    }
  }
  client.defineCommand(COMMAND, { numberOfKeys: 1, lua: TAKE_SCRIPT });
  const run = (client as unknown as Record<typeof COMMAND, TakeCommand>)[COMMAND].bind(client);
  let closed = false;

  const unavailable = (error: unknown, spec: BucketSpec, cost: number): RateDecision => {
    const cause = new Error(
      `the Redis rate limiter could not use ${where}: ${(lastError ?? (error as Error)).message ?? error}`,
      { cause: error },
    );
    options.onUnavailable?.(cause);
    if (whenUnavailable === 'allow') return decide(true, Math.max(0, spec.burst - cost), spec, cost);
    // The client sees a retryable 500 without the Redis address; the log gets the cause.
    throw new ServiceError('internal_error', 'the rate limiter is unavailable; retry shortly', { cause });
  };

  return {
    async take(key, spec, now, cost = 1) {
      check(spec, cost);
      if (closed) throw new Error('the Redis rate limiter is closed');
      let reply: [number, string];
      try {
        lastError = undefined;
        reply = await run(
          `${prefix}${key}`,
          String(spec.ratePerSecond),
          String(spec.burst),
          String(now),
          String(cost),
          String(idleMs),
        );
      } catch (error) {
        // Redis answered with an error (a foreign key of another type under our prefix, a
        // script Redis refuses): not an outage, so never a reason to fail open.
        if ((error as Error).name === 'ReplyError') {
          throw new Error(
            `the Redis rate limiter's script failed on ${prefix}${key}: ${(error as Error).message}`,
            {
              cause: error,
            },
          );
        }
        return unavailable(error, spec, cost);
      }
      return decide(reply[0] === 1, Number(reply[1]), spec, cost);
    },
    async close() {
      if (closed) return;
      closed = true;
      if (owned) await client.quit().catch(() => client.disconnect());
    },
  };
}
