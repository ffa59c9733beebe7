import { randomBytes } from 'node:crypto';

// The benchmark's own corner of the shared PostgreSQL and Redis: a fresh schema and queue name
// per run, removed afterwards, so a run neither reads nor leaves anything of another.

/** `svc_bench_<hex>`: a plain identifier, valid as a schema and as a queue name. */
export function scratchName(): string {
  return `svc_bench_${randomBytes(6).toString('hex')}`;
}

/** Drops the schema with everything in it. */
export async function dropSchema(url: string, schema: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** Deletes the Redis keys whose names contain `name` (BullMQ's are `<prefix>:<queue>:…`). */
export async function deleteRedisKeys(url: string, name: string): Promise<void> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, { maxRetriesPerRequest: 2 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `*${name}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
