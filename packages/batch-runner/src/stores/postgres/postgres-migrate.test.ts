import { POSTGRES, scratchSchemas, serviceUrl } from '@svc/testkit';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { geoJob } from '../../testing/jobs.js';
import { migratePostgresStore, POSTGRES_STORE_MIGRATIONS } from './migrations.js';
import { createPostgresStore } from './store.js';

const url = await serviceUrl(POSTGRES, 'the Postgres batch store migrations');
const newest = POSTGRES_STORE_MIGRATIONS.length;

describe.skipIf(!url)('Postgres store migrations', () => {
  const schemas = scratchSchemas(url as string);
  const admin = new pg.Pool({ connectionString: url, max: 2 });
  afterAll(async () => {
    await schemas.drop();
    await admin.end();
  });
  const versions = async (schema: string) =>
    (await admin.query(`SELECT version FROM "${schema}".batch_schema_migrations ORDER BY version`)).rows.map(
      (row) => row.version,
    );

  it('applies each version once when several processes migrate at the same moment', async () => {
    const schema = schemas.next();
    const runs = await Promise.all(
      Array.from({ length: 5 }, () => migratePostgresStore({ connectionString: url as string, schema })),
    );
    // The advisory lock lets one run create everything; the others wait, then find it done.
    expect(runs.filter((run) => run.applied.length > 0)).toEqual([
      { schema, fromVersion: 0, toVersion: newest, applied: POSTGRES_STORE_MIGRATIONS.map((m) => m.name) },
    ]);
    expect(runs.filter((run) => run.fromVersion === newest)).toHaveLength(4);
    expect(await versions(schema)).toEqual(Array.from({ length: newest }, (_, index) => index + 1));
    // And again later: nothing to do.
    expect(await migratePostgresStore({ connectionString: url as string, schema })).toEqual({
      schema,
      fromVersion: newest,
      toVersion: newest,
      applied: [],
    });
  });

  it('opens stores started at once on a new schema (each migrates on start)', async () => {
    const schema = schemas.next();
    const stores = await Promise.all(
      Array.from({ length: 3 }, () =>
        createPostgresStore({ connectionString: url as string, schema, poolSize: 1 }),
      ),
    );
    expect(await versions(schema)).toHaveLength(newest);
    await Promise.all(stores.map((store) => store.close()));
  });

  it('works on a pool of the caller, which close() leaves open, also for two schemas on one pool', async () => {
    const schema = schemas.next();
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    expect((await migratePostgresStore({ pool, schema })).applied).toHaveLength(newest);
    // Two stores on one pool's connections: each schema's prepared statements are its own.
    const stores = [
      await createPostgresStore({ pool, schema }),
      await createPostgresStore({ pool, schema: schemas.next() }),
    ];
    for (const [n, store] of stores.entries()) {
      await store.createJob(geoJob(`batch_pool${n}`));
    }
    for (const [n, store] of stores.entries()) {
      expect((await store.claimChunk('w', Date.now(), 1000))?.jobId).toBe(`batch_pool${n}`);
      expect(await store.claimChunk('w', Date.now(), 1000)).toBeNull();
    }
    for (const store of stores) await store.close();
    expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    await pool.end();
  });

  it('with migrate: false, opens only a schema that is up to date and says to run svc migrate otherwise', async () => {
    const schema = schemas.next();
    await expect(
      createPostgresStore({ connectionString: url as string, schema, migrate: false }),
    ).rejects.toThrow(
      `the batch store schema "${schema}" at ${url} is at version 0, this @svc/batch-runner needs ${newest}: run svc migrate (or migratePostgresStore)`,
    );
    await migratePostgresStore({ connectionString: url as string, schema });
    const store = await createPostgresStore({ connectionString: url as string, schema, migrate: false });
    expect(await store.getJob('batch_none')).toBeNull();
    await store.close();
  });

  it('refuses a schema written by a newer version, naming both versions', async () => {
    const schema = schemas.next();
    await migratePostgresStore({ connectionString: url as string, schema });
    await admin.query(
      `INSERT INTO "${schema}".batch_schema_migrations (version, name) VALUES ($1, 'from the future')`,
      [newest + 1],
    );
    await expect(createPostgresStore({ connectionString: url as string, schema })).rejects.toThrow(
      `schema ${schema} has batch store version ${newest + 1}, newer than this @svc/batch-runner knows (${newest}); upgrade @svc/batch-runner`,
    );
  });
});

// Only the missing database needs a server: the rest fails before or at the connection.
describe('Postgres store: bad connection settings', () => {
  it('names the database (without its password) and the cause when it cannot connect', async () => {
    const error = await createPostgresStore({
      connectionString: 'postgres://svc:hunter2@127.0.0.1:1/jobs',
      connectTimeoutMs: 2000,
    }).catch((caught: Error) => caught);
    expect(error).toMatchObject({ name: 'ServiceError', code: 'internal_error' });
    expect((error as Error).message).toMatch(
      /^cannot use the batch job database at postgres:\/\/svc:\*\*\*@127\.0\.0\.1:1\/jobs: connect ECONNREFUSED 127\.0\.0\.1:1$/,
    );
    expect((error as Error).message).not.toContain('hunter2');
  });

  it.skipIf(!url)('says which database does not exist', async () => {
    const wrong = new URL(url as string);
    wrong.pathname = '/svc_no_such_database';
    await expect(createPostgresStore({ connectionString: wrong.toString() })).rejects.toThrow(
      `cannot use the batch job database at ${wrong}: database "svc_no_such_database" does not exist`,
    );
  });

  it('refuses what is not a postgres:// URL or a usable schema name before connecting', async () => {
    await expect(createPostgresStore({ connectionString: 'mysql://db.example.test/jobs' })).rejects.toThrow(
      'connectionString must be a postgres:// or postgresql:// URL, got one starting "mysql:"',
    );
    await expect(createPostgresStore({ connectionString: 'db.example.test:5432' })).rejects.toThrow(
      'connectionString must be a postgres:// or postgresql:// URL, got one starting "db.example.test:"',
    );
    await expect(createPostgresStore({ connectionString: 'not a url' })).rejects.toThrow(
      'connectionString is not a URL: expected postgres://user:password@host:5432/database',
    );
    await expect(createPostgresStore({})).rejects.toThrow(
      'the PostgreSQL batch store needs `connectionString` (postgres://…) or `pool`',
    );
    await expect(
      createPostgresStore({ connectionString: url as string, schema: 'Jobs; DROP' }),
    ).rejects.toThrow(
      'schema must be lowercase letters, digits and _ (starting with a letter or _, at most 63 characters), got "Jobs; DROP"',
    );
  });
});
