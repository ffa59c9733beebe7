import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * Scratch schemas for tests on a shared PostgreSQL server (test files run in parallel): `next()`
 * hands out a new `<stem>_<12 hex>` schema, and `drop()` removes every one handed out so far.
 */
export function scratchSchemas(url: string, stem = 'svc_t'): { next(): string; drop(): Promise<void> } {
  const made: string[] = [];
  return {
    next() {
      const schema = `${stem}_${randomBytes(6).toString('hex')}`;
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
