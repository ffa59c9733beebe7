import { randomBytes } from 'node:crypto';
import pg from 'pg';

// A test's own corner of the shared PostgreSQL server (test files run in parallel on it): fresh
// schemas, or a fresh database, dropped at the end.

/** A fresh name: `<stem>_<12 hex>` (a valid PostgreSQL identifier and Redis key part). */
export function scratchName(stem: string): string {
  return `${stem}_${randomBytes(6).toString('hex')}`;
}

/**
 * Scratch schemas for tests on a shared PostgreSQL server: `next()` hands out a new
 * `<stem>_<12 hex>` schema, and `drop()` removes every one handed out so far.
 */
export function scratchSchemas(url: string, stem = 'svc_t'): { next(): string; drop(): Promise<void> } {
  const made: string[] = [];
  return {
    next() {
      const schema = scratchName(stem);
      made.push(schema);
      return schema;
    },
    async drop() {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        for (const schema of made.splice(0)) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
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
