import { POSTGRES, scratchSchemas, serviceUrl } from '@svc/testkit';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { EnrichmentAdapter } from '../adapter.js';
import { createPostgresCache } from '../cache/postgres.js';
import { createEnricher } from '../enricher.js';
import { hashIdentifier } from '../privacy/hash.js';
import { createPostgresSuppression } from '../privacy/suppression-postgres.js';
import { describeCache } from '../testing/describe-cache.js';
import { describeSuppression } from '../testing/describe-suppression.js';
import { ENRICH_POSTGRES_MIGRATIONS } from './connect.js';

const url = await serviceUrl(POSTGRES, 'the PostgreSQL enrichment cache and suppression list suites');

describe.skipIf(!url)('PostgreSQL enrichment stores', () => {
  // Each store gets a schema of its own (tests run in parallel on one server), dropped at the end.
  const schemas = scratchSchemas(url as string, 'svc_t_enrich');
  afterAll(() => schemas.drop());
  const where = (schema = schemas.next()) => ({ connectionString: url as string, schema, poolSize: 2 });

  describeCache('postgres', (options) => createPostgresCache({ ...options, ...where() }));
  describeSuppression('postgres', () => createPostgresSuppression(where()));

  it('two machines on one schema: an erase through one applies to the other at once', async () => {
    const schema = schemas.next();
    const [cacheA, cacheB] = await Promise.all([
      createPostgresCache(where(schema)),
      createPostgresCache(where(schema)),
    ]);
    const [listA, listB] = await Promise.all([
      createPostgresSuppression(where(schema)),
      createPostgresSuppression(where(schema)),
    ]);
    try {
      const jane = hashIdentifier('email:jane@acme.com');
      await cacheB.set('web:jane', { value: 'v', storedAt: 0, expiresAt: 10_000, subjects: [jane] });
      expect((await cacheA.get('web:jane', 1))?.subjects).toEqual([jane]);
      expect(await cacheA.purgeSubject(jane)).toBe(1);
      await listA.add(jane, 1);
      expect(await cacheB.get('web:jane', 1)).toBeUndefined();
      expect(await listB.has(jane)).toBe(true);
      expect(await listB.remove(jane)).toBe(true);
      expect(await listA.has(jane)).toBe(false);
    } finally {
      await Promise.all([cacheA, cacheB, listA, listB].map((store) => store.close()));
    }
  });

  it('two enrichers on one database: a person erased through one is refused by the other, its cache purged', async () => {
    const schema = schemas.next();
    let calls = 0;
    const person: EnrichmentAdapter<'person'> = {
      id: 'people',
      kind: 'person',
      accepts: ['email'],
      provides: ['full_name', 'email'],
      cost: 0,
      billsMisses: false,
      ttl: { hitSeconds: 3600, missSeconds: 3600 },
      concurrency: 1,
      async lookup(query) {
        calls++;
        const email = query.by === 'email' ? query.email : '';
        return {
          type: 'hit',
          candidates: [{ fields: { full_name: 'Jane Roe', email }, confidence: 0.9 }],
          cost: 0,
        };
      },
    };
    const stores: Array<{ close(): Promise<void> }> = [];
    const machine = async () => {
      const cache = await createPostgresCache(where(schema));
      const suppression = await createPostgresSuppression(where(schema));
      stores.push(cache, suppression);
      return createEnricher({ adapters: [person], cache, suppression });
    };
    const [a, b] = [await machine(), await machine()];
    try {
      expect((await a.enrichContact({ email: 'jane@acme.com' })).match?.full_name).toBe('Jane Roe');
      expect((await b.enrichContact({ email: 'jane@acme.com' })).match?.full_name).toBe('Jane Roe');
      expect(calls).toBe(1); // b was served from the shared cache
      expect(await a.erase({ email: 'jane@acme.com' })).toMatchObject({ cache_entries_purged: 1 });
      const refused = await b.enrichContact({ email: 'jane@acme.com' });
      expect(refused).toMatchObject({ match: null, suppressed: true });
      expect(calls).toBe(1);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });

  it('migrates once when processes start together, and refuses a schema newer than it knows', async () => {
    const schema = schemas.next();
    const stores = await Promise.all([
      createPostgresCache(where(schema)),
      createPostgresSuppression(where(schema)),
      createPostgresCache(where(schema)),
    ]);
    await Promise.all(stores.map((store) => store.close()));
    const pool = new pg.Pool({ connectionString: url as string, max: 1 });
    try {
      const { rows } = await pool.query(`SELECT version FROM "${schema}".enrich_schema_migrations`);
      expect(rows).toEqual([{ version: ENRICH_POSTGRES_MIGRATIONS.length }]);
      await pool.query(
        `INSERT INTO "${schema}".enrich_schema_migrations (version, name) VALUES ($1, 'from the future')`,
        [ENRICH_POSTGRES_MIGRATIONS.length + 1],
      );
    } finally {
      await pool.end();
    }
    await expect(createPostgresCache(where(schema))).rejects.toThrow('upgrade @svc/enricher');
  });

  it('names the database without its password when it cannot connect', async () => {
    await expect(
      createPostgresSuppression({
        connectionString: 'postgres://svc:hunter2@127.0.0.1:1/none',
        connectTimeoutMs: 2000,
      }),
    ).rejects.toThrow(/cannot use the enrichment database at postgres:\/\/svc:\*\*\*@127\.0\.0\.1:1\/none/);
  });
});
