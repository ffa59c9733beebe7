import { POSTGRES, scratchSchemas, serviceUrl } from '@svc/testkit';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { describeResultCache, sampleResult } from '../testing/describe-result-cache.js';
import { createPostgresResultCache } from './postgres.js';

const url = await serviceUrl(POSTGRES, 'the PostgreSQL result cache conformance suite');

describe.skipIf(!url)('PostgreSQL result cache', () => {
  // Each cache gets a schema of its own (tests run in parallel on one server), dropped at the end.
  const schemas = scratchSchemas(url as string);
  afterAll(() => schemas.drop());

  describeResultCache('postgres', (options) =>
    createPostgresResultCache({
      ...options,
      connectionString: url as string,
      schema: schemas.next(),
      poolSize: 2,
    }),
  );

  const key = (address: string) => ({ namespace: '', address, variant: 'probe=1;disposable=1' });

  it('is shared by two caches on one schema (two processes), and prunes to maxEntries', async () => {
    const schema = schemas.next();
    const first = await createPostgresResultCache({ connectionString: url as string, schema, poolSize: 1 });
    const second = await createPostgresResultCache({
      connectionString: url as string,
      schema,
      poolSize: 1,
      maxEntries: 3,
      pruneEvery: 1,
    });
    try {
      await first.set([{ key: key('kept@x.com'), result: sampleResult('undeliverable') }], 0);
      expect((await second.get([key('kept@x.com')], 1))[0]?.result.state).toBe('undeliverable');
      for (const name of ['u1', 'u2', 'u3']) {
        await second.set([{ key: key(`${name}@x.com`), result: sampleResult('unknown') }], 10);
      }
      const found = await first.get(
        [key('kept@x.com'), key('u1@x.com'), key('u2@x.com'), key('u3@x.com')],
        11,
      );
      expect(found.filter(Boolean)).toHaveLength(3);
      expect(found[0]).toBeDefined();
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('opens a cache created before its versions were recorded, keeping its entries', async () => {
    const schema = schemas.next();
    const pool = new pg.Pool({ connectionString: url as string, max: 1 });
    try {
      // The table as the first PostgreSQL result cache created it, with one entry.
      await pool.query(`CREATE SCHEMA "${schema}"`);
      await pool.query(`CREATE TABLE "${schema}".email_result_cache (
        namespace TEXT NOT NULL, address TEXT NOT NULL, variant TEXT NOT NULL, result TEXT NOT NULL,
        cached_at BIGINT NOT NULL, expires_at BIGINT NOT NULL, PRIMARY KEY (namespace, address, variant))`);
      await pool.query(`INSERT INTO "${schema}".email_result_cache VALUES ('', 'a@x.com', $1, $2, 0, 100)`, [
        key('a@x.com').variant,
        JSON.stringify(sampleResult('deliverable')),
      ]);
      const cache = await createPostgresResultCache({ pool, schema });
      try {
        expect((await cache.get([key('a@x.com')], 1))[0]?.result.state).toBe('deliverable');
      } finally {
        await cache.close();
      }
      const { rows } = await pool.query(
        `SELECT version, name FROM "${schema}".email_result_cache_migrations`,
      );
      expect(rows).toEqual([{ version: 1, name: expect.stringContaining('email_result_cache') }]);
    } finally {
      await pool.end();
    }
  });

  it('keeps only the last of one key written twice in a batch', async () => {
    const cache = await createPostgresResultCache({
      connectionString: url as string,
      schema: schemas.next(),
    });
    try {
      await cache.set(
        [
          { key: key('a@x.com'), result: sampleResult('undeliverable') },
          { key: key('a@x.com'), result: sampleResult('deliverable') },
        ],
        0,
      );
      expect((await cache.get([key('a@x.com')], 1))[0]?.result.state).toBe('deliverable');
    } finally {
      await cache.close();
    }
  });
});

describe('PostgreSQL result cache options', () => {
  it('refuses a schema that is not a plain identifier, and a missing connection', async () => {
    await expect(
      createPostgresResultCache({ connectionString: 'postgres://x', schema: 'a;b' }),
    ).rejects.toThrow('schema must be lowercase letters, digits and _');
    await expect(createPostgresResultCache({})).rejects.toThrow(
      'needs `connectionString` (postgres://…) or `pool`',
    );
  });
});
