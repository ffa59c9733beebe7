import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * Scratch schemas for tests on a shared server: each test file (and store) gets its own
 * `svc_t_<hex>` schema, and `drop()` removes every one handed out.
 */
export function scratchSchemas(url: string): { next(): string; drop(): Promise<void> } {
  const made: string[] = [];
  return {
    next() {
      const schema = `svc_t_${randomBytes(6).toString('hex')}`;
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
