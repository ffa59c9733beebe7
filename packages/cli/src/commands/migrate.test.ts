import { randomBytes } from 'node:crypto';
import { POSTGRES_STORE_MIGRATIONS } from '@svc/batch-runner';
import { ENRICH_POSTGRES_MIGRATIONS } from '@svc/enricher';
import { POSTGRES_CONTROL_PLANE_MIGRATIONS } from '@svc/server';
import { POSTGRES, serviceUrl } from '@svc/testkit';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT } from '../exit-codes.js';
import { main } from '../main.js';
import { captureIo } from '../testing/capture-io.js';

const url = await serviceUrl(POSTGRES, 'svc migrate');
const batchVersion = POSTGRES_STORE_MIGRATIONS.length;
const controlVersion = POSTGRES_CONTROL_PLANE_MIGRATIONS.length;
const enrichVersion = ENRICH_POSTGRES_MIGRATIONS.length;

async function svc(argv: string[], env: Record<string, string> = {}) {
  const io = captureIo();
  Object.assign(io.env, env);
  const code = await main(argv, io);
  return { code, out: io.out(), err: io.err() };
}

describe('svc migrate: bad usage', () => {
  it('needs a postgres:// URL, from --database-url or SVC_DATABASE_URL', async () => {
    const none = await svc(['migrate']);
    expect(none.code).toBe(EXIT.usage);
    expect(none.err).toContain('svc: svc migrate needs --database-url postgres://… (or SVC_DATABASE_URL)');
    const wrong = await svc(['migrate'], { SVC_DATABASE_URL: 'mysql://db.example.test/x' });
    expect(wrong.code).toBe(EXIT.usage);
    expect(wrong.err).toContain(
      'svc: --database-url must be a URL such as postgres://user:password@host:5432/database',
    );
  });

  it('refuses a schema name that is not a plain identifier before connecting', async () => {
    const run = await svc(['migrate', '--database-url', 'postgres://127.0.0.1:1/x', '--schema', 'a;b']);
    expect(run.code).toBe(EXIT.usage);
    expect(run.err).toContain('svc: --schema must be lowercase letters, digits and _');
  });

  it('names the database, without its password, when it cannot connect: exit 1', async () => {
    const run = await svc(['migrate', '--database-url', 'postgres://svc:hunter2@127.0.0.1:1/jobs']);
    expect(run.code).toBe(EXIT.failure);
    expect(run.err).toContain(
      'svc: cannot use the batch job database at postgres://svc:***@127.0.0.1:1/jobs:',
    );
    expect(run.err).not.toContain('hunter2');
  });
});

describe.skipIf(!url)('svc migrate on PostgreSQL', () => {
  const schema = `svc_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Pool({ connectionString: url, max: 1 });
  afterAll(async () => {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });

  it('creates every store’s tables, prints the versions applied, and finds nothing to do the second time', async () => {
    const first = await svc(['migrate', '--schema', schema], { SVC_DATABASE_URL: url as string });
    expect(first.code, first.err).toBe(EXIT.ok);
    expect(first.out).toBe(
      [
        `batch store (schema ${schema}): version 0 → ${batchVersion}`,
        ...POSTGRES_STORE_MIGRATIONS.map((migration, index) => `  applied ${index + 1}: ${migration.name}`),
        `control plane (schema ${schema}): version 0 → ${controlVersion}`,
        `enrichment cache and suppression list (schema ${schema}): version 0 → ${enrichVersion}`,
        ...ENRICH_POSTGRES_MIGRATIONS.map((migration, index) => `  applied ${index + 1}: ${migration.name}`),
        '',
      ].join('\n'),
    );
    const tables = await admin.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name`,
      [schema],
    );
    expect(tables.rows.map((row) => row.table_name)).toEqual(
      expect.arrayContaining([
        'accounts',
        'batch_schema_migrations',
        'chunks',
        'enrich_cache',
        'enrich_suppression',
        'jobs',
        'outbox',
        'results',
      ]),
    );
    const again = await svc(['migrate', '--database-url', url as string, '--schema', schema, '--json']);
    expect(again.code, again.err).toBe(EXIT.ok);
    expect(JSON.parse(again.out)).toEqual({
      migrated: [
        { store: 'batch', schema, from_version: batchVersion, to_version: batchVersion, applied: [] },
        { store: 'control_plane', schema, from_version: controlVersion, to_version: controlVersion },
        { store: 'enrichment', schema, from_version: enrichVersion, to_version: enrichVersion, applied: [] },
      ],
    });
  });
});
