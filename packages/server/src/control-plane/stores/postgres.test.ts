import { randomBytes } from 'node:crypto';
import { closedPort, POSTGRES, serviceUrl } from '@svc/testkit';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_PLANS } from '../../options.js';
import { describeControlPlaneStore } from '../../testing/describe-control-plane-store.js';
import { sessionSecrets } from '../../testing/session-secrets.js';
import { rotateKey } from '../accounts.js';
import type { ControlPlaneStore, Plan } from '../store.js';
import { createPostgresControlPlaneStore } from './postgres.js';
import { migratePostgresControlPlane, POSTGRES_MIGRATIONS } from './postgres-migrate.js';

const url = await serviceUrl(POSTGRES, 'the PostgreSQL control-plane store');

describe.skipIf(!url)('PostgreSQL control-plane store', () => {
  const connectionString = url as string;
  const admin = new pg.Pool({ connectionString, max: 2 });
  const schemas: string[] = [];
  // Every test gets its own schema on the shared server (vitest runs files in parallel).
  const freshSchema = () => {
    const schema = `svc_t_${randomBytes(6).toString('hex')}`;
    schemas.push(schema);
    return schema;
  };
  afterAll(async () => {
    for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });

  const schemaOf = new WeakMap<ControlPlaneStore, string>();
  describeControlPlaneStore('PostgreSQL', {
    async create() {
      const schema = freshSchema();
      const store = await createPostgresControlPlaneStore({ connectionString, schema, poolSize: 4 });
      schemaOf.set(store, schema);
      return store;
    },
    // A second pool on the same schema, as a second API process would open.
    reopen: async (store) =>
      createPostgresControlPlaneStore({ connectionString, schema: schemaOf.get(store) as string }),
  });

  it('keeps no plaintext key, token or webhook secret in any table', async () => {
    const schema = freshSchema();
    const { deps, account, liveKey, secrets } = await sessionSecrets(
      await createPostgresControlPlaneStore({ connectionString, schema }),
    );
    const rotatedKey = await rotateKey(deps.controlPlane, {
      accountId: account.id,
      keyId: liveKey.key.id,
      graceSeconds: 60,
    });
    await deps.controlPlane.recordUsage(account.id, 'geo_ip', '2026-11', 1);

    const { rows: tables } = await admin.query<{ table_name: string }>(
      'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
      [schema],
    );
    expect(tables.map((t) => t.table_name)).toEqual([
      'accounts',
      'api_keys',
      'plans',
      'schema_migrations',
      'tokens',
      'usage',
      'usage_credits',
      'usage_daily',
      'usage_months',
      'webhook_secrets',
    ]);
    let text = '';
    for (const { table_name } of tables) {
      const { rows } = await admin.query<{ row: string }>(
        `SELECT t::text AS row FROM "${schema}"."${table_name}" t`,
      );
      text += rows.map((r) => r.row).join('\n');
    }
    // The data is there (the test would be empty otherwise): the account id and key hashes.
    expect(text).toContain(account.id);
    expect(text).toContain(liveKey.key.hash);
    expect(text).toContain(rotatedKey.key.hash);
    for (const secret of [...secrets, rotatedKey.secret]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(secret.slice(-24));
    }
    await deps.controlPlane.close();
  });

  it('keeps the month totals equal to the sum of the usage lines under concurrent writers', async () => {
    const schema = freshSchema();
    const one = await createPostgresControlPlaneStore({ connectionString, schema, poolSize: 5 });
    const two = await createPostgresControlPlaneStore({ connectionString, schema, poolSize: 5 });
    const endpoints = ['geo_ip', 'verify_email', 'verify_email_bulk'];
    const totals = await Promise.all(
      Array.from({ length: 150 }, (_, i) =>
        (i % 2 ? one : two).recordUsage(
          'acct_a',
          endpoints[i % 3] as string,
          '2026-11',
          (i % 3) + 1,
          i % 5 ? `2026-11-0${(i % 4) + 1}` : undefined,
        ),
      ),
    );
    // 50 calls each of 1, 2 and 3 units: 300; every call saw its own running total.
    expect(Math.max(...totals)).toBe(300);
    expect(new Set(totals).size).toBe(150);
    const { rows } = await admin.query<{ lines: string; month: string }>(
      `SELECT (SELECT sum(units) FROM "${schema}".usage WHERE account_id = 'acct_a') AS lines,
              (SELECT units FROM "${schema}".usage_months WHERE account_id = 'acct_a' AND month = '2026-11') AS month`,
    );
    expect(rows[0]).toEqual({ lines: '300', month: '300' });
    // Four calls in five were recorded with a day: the days hold exactly those.
    const days = await one.usageByDay('acct_a', '2026-11');
    expect(days.reduce((sum, line) => sum + line.calls, 0)).toBe(120);
    await one.close();
    await two.close();
  });

  it('adds batches from two stores at once, in opposite orders, without a deadlock or a lost unit', async () => {
    const schema = freshSchema();
    const one = await createPostgresControlPlaneStore({ connectionString, schema, poolSize: 4 });
    const two = await createPostgresControlPlaneStore({ connectionString, schema, poolSize: 4 });
    const lines = ['acct_a', 'acct_b', 'acct_c'].flatMap((accountId) =>
      ['geo_ip', 'verify_email'].map((endpoint) => ({
        accountId,
        endpoint,
        month: '2026-11',
        day: '2026-11-23',
        calls: 2,
        units: 3,
      })),
    );
    const reversed = [...lines].reverse();
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? one : two).addUsage(i % 2 ? lines : reversed)),
    );
    for (const account of ['acct_a', 'acct_b', 'acct_c']) {
      expect(await one.usedUnits(account, '2026-11')).toBe(20 * 2 * 3);
      expect(await two.usage(account, '2026-11')).toEqual([
        { endpoint: 'geo_ip', calls: 40, units: 60 },
        { endpoint: 'verify_email', calls: 40, units: 60 },
      ]);
    }
    await one.close();
    await two.close();
  });

  it('migrates a new schema once when several processes start at once', async () => {
    const schema = freshSchema();
    const results = await Promise.all(
      Array.from({ length: 4 }, () => migratePostgresControlPlane({ connectionString, schema })),
    );
    // Exactly one of them applied the migrations; the others waited on the lock and found them done.
    expect(results.map((r) => r.fromVersion).sort()).toEqual(
      [0, 1, 1, 1].map((v) => v * POSTGRES_MIGRATIONS.length),
    );
    expect(results.every((r) => r.toVersion === POSTGRES_MIGRATIONS.length)).toBe(true);
    const { rows } = await admin.query(`SELECT version FROM "${schema}".schema_migrations ORDER BY version`);
    expect(rows.map((r) => r.version)).toEqual(POSTGRES_MIGRATIONS.map((_, i) => i + 1));
    // A store opened on the migrated schema applies nothing again (a second CREATE TABLE would throw).
    await (await createPostgresControlPlaneStore({ connectionString, schema })).close();
  });

  it('refuses a schema written by a newer version, naming both versions', async () => {
    const schema = freshSchema();
    await migratePostgresControlPlane({ connectionString, schema });
    const newer = POSTGRES_MIGRATIONS.length + 1;
    await admin.query(`INSERT INTO "${schema}".schema_migrations (version) VALUES ($1)`, [newer]);
    await expect(createPostgresControlPlaneStore({ connectionString, schema })).rejects.toThrow(
      `schema ${schema} has control-plane schema version ${newer}, newer than this @svc/server knows (${POSTGRES_MIGRATIONS.length}); upgrade @svc/server`,
    );
  });

  it('uses a pool it is given and leaves it open on close', async () => {
    const schema = freshSchema();
    const pool = new pg.Pool({ connectionString, max: 2 });
    const store = await createPostgresControlPlaneStore({ pool, schema });
    await store.upsertPlan(DEFAULT_PLANS.free as Plan);
    expect((await store.listPlans()).map((p) => p.id)).toEqual(['free']);
    await store.close();
    await expect(store.listPlans()).rejects.toThrow('the control-plane store is closed');
    expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    await pool.end();
  });

  it('says which database it cannot reach, without the password', async () => {
    const port = await closedPort();
    await expect(
      createPostgresControlPlaneStore({
        connectionString: `postgres://svc:hunter2@127.0.0.1:${port}/svc`,
        schema: freshSchema(),
      }),
    ).rejects.toThrow(`cannot use the control-plane database at postgres://svc:***@127.0.0.1:${port}/svc: `);
    // A ServiceError, as the batch store's: the API answers it as internal_error, never with the URL.
    await expect(
      createPostgresControlPlaneStore({ connectionString: `postgres://svc:hunter2@127.0.0.1:${port}/svc` }),
    ).rejects.toMatchObject({ code: 'internal_error' });
  });

  it('refuses options that cannot work, naming them', async () => {
    await expect(createPostgresControlPlaneStore({ connectionString, schema: 'Bad-Name' })).rejects.toThrow(
      'schema must be lowercase letters, digits and _ (starting with a letter or _, at most 63 characters), got "Bad-Name"',
    );
    await expect(createPostgresControlPlaneStore({})).rejects.toThrow(
      'the PostgreSQL control-plane store needs `connectionString` (postgres://…) or `pool`',
    );
    await expect(createPostgresControlPlaneStore({ connectionString, poolSize: 0 })).rejects.toThrow(
      'poolSize must be a positive integer, got 0',
    );
    // Checked before pg is loaded, as for the batch store (the pool plumbing is shared).
    await expect(
      createPostgresControlPlaneStore({ connectionString: 'mysql://db.example.test/x' }),
    ).rejects.toThrow(
      'connectionString must be a postgres:// or postgresql:// URL, got one starting "mysql:"',
    );
  });
});
