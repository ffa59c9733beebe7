/**
 * An ioredis `Redis` client, as the options that take a caller's client accept it (the batch
 * queue's `connection`, the Redis rate limiter's `client`): pass your `new Redis(…)` as it is.
 * Declared here, as a few of the methods ioredis' client has, so that no declaration file imports
 * ioredis' types: ioredis is an optional peer, and an app with `skipLibCheck: false` that does not
 * install it must still typecheck. The users cast it back to ioredis' `Redis`.
 */
export interface RedisClient {
  duplicate(): unknown;
  quit(): Promise<unknown>;
  disconnect(): void;
}
