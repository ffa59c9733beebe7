// A test's own corner of the shared Redis (DESIGN §9: vitest runs files in parallel on the same
// servers): a fresh key prefix whose keys are deleted at the end; ioredis is loaded on first use,
// like the packages do. The PostgreSQL side (scratchName, createScratchDatabase) is @svc/testkit's.

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
