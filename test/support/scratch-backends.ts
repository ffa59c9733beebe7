import { randomBytes } from 'node:crypto';

// A test's own corner of the shared PostgreSQL and Redis (DESIGN §9: vitest runs files in
// parallel on the same servers): a fresh database dropped at the end, a fresh key prefix whose
// keys are deleted at the end. pg and ioredis are loaded on first use, like the packages do.

/** A fresh name: `<stem>_<12 hex>` (a valid Postgres identifier and Redis key part). */
export function scratchName(stem: string): string {
  return `${stem}_${randomBytes(6).toString('hex')}`;
}

/**
 * Creates the database `name` on the server of `url` and returns its URL and a function that
 * drops it (closing whatever connections are left). A database of its own, not just a schema:
 * `svc serve` picks its schemas itself, so a fresh database is how a test keeps them apart.
 */
export async function createScratchDatabase(
  url: string,
  name: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new TypeError(`not a plain database name: ${name}`);
  const { default: pg } = await import('pg');
  const run = async (sql: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await run(`CREATE DATABASE "${name}"`);
  const scratch = new URL(url);
  scratch.pathname = `/${name}`;
  return { url: scratch.toString(), drop: () => run(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

/** Deletes every Redis key that starts with one of `prefixes`; returns how many were deleted. */
export async function deleteRedisKeys(url: string, prefixes: readonly string[]): Promise<number> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, { maxRetriesPerRequest: 2, lazyConnect: true });
  await redis.connect();
  let deleted = 0;
  try {
    for (const prefix of prefixes) {
      if (prefix.length < 8) throw new Error(`refusing to delete keys under the short prefix ${prefix}`);
      // Glob characters in the prefix are escaped, so only keys that truly start with it match.
      const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
        cursor = next;
        if (keys.length > 0) deleted += await redis.del(...keys);
      } while (cursor !== '0');
    }
  } finally {
    redis.disconnect();
  }
  return deleted;
}
