import { createServer } from 'node:net';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { ServiceError } from '../service-error.js';
import {
  checkedPostgresSchema,
  connectPostgresClient,
  openPostgresPool,
  type PostgresStoreNames,
  redactedPostgresUrl,
} from './pool.js';

const names: PostgresStoreNames = {
  store: 'the PostgreSQL thing store',
  database: 'the thing database',
  from: '@svc/things',
  loadPg: async () => pg,
};

// A port nothing listens on: bound, then closed.
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('checkedPostgresSchema', () => {
  it('takes a plain identifier or the fallback, and refuses anything spliced into SQL badly', () => {
    expect(checkedPostgresSchema(undefined, 'svc_things')).toBe('svc_things');
    expect(checkedPostgresSchema('svc_t_01', 'svc_things')).toBe('svc_t_01');
    for (const bad of ['a;b', 'Upper', '1st', 'x'.repeat(64), '']) {
      expect(() => checkedPostgresSchema(bad, 'svc_things')).toThrow(TypeError);
    }
  });
});

describe('redactedPostgresUrl', () => {
  it('never shows a password', () => {
    expect(redactedPostgresUrl('postgres://svc:s3cret@db:5432/svc')).toBe('postgres://svc:***@db:5432/svc');
    expect(redactedPostgresUrl('s3cret')).toBe('(an unparsable connection string)');
  });
});

describe('openPostgresPool', () => {
  it('refuses missing or wrong settings before loading pg, naming the store', async () => {
    const never: PostgresStoreNames = {
      ...names,
      loadPg: () => Promise.reject(new Error('pg must not load')),
    };
    await expect(openPostgresPool({}, never)).rejects.toThrow(
      'the PostgreSQL thing store needs `connectionString` (postgres://…) or `pool`',
    );
    await expect(openPostgresPool({ connectionString: 'mysql://db/x' }, never)).rejects.toThrow(
      'must be a postgres:// or postgresql:// URL',
    );
    await expect(openPostgresPool({ connectionString: 'not a url' }, never)).rejects.toThrow('is not a URL');
    await expect(
      openPostgresPool({ connectionString: 'postgres://db/x', poolSize: 0 }, never),
    ).rejects.toThrow('poolSize must be a positive integer');
  });

  it("says who needs pg and where it must resolve when the package's import fails", async () => {
    const missing: PostgresStoreNames = {
      ...names,
      loadPg: () => Promise.reject(new Error("Cannot find package 'pg'")),
    };
    await expect(openPostgresPool({ connectionString: 'postgres://db/x' }, missing)).rejects.toThrow(
      "the PostgreSQL thing store needs pg (npm install pg@8) where @svc/things resolves it, or passed as the `driver` option, or a pg.Pool as `pool` (Cannot find package 'pg')",
    );
  });

  it('opens a pool it owns from a URL (with the default size), and leaves a given pool to its owner', async () => {
    const opened = await openPostgresPool(
      { connectionString: 'postgres://svc:s3cret@127.0.0.1:1/svc' },
      { ...names, defaultPoolSize: 3 },
    );
    expect(opened.owned).toBe(true);
    expect(opened.where).toBe('postgres://svc:***@127.0.0.1:1/svc');
    expect((opened.pool as pg.Pool).options.max).toBe(3);
    await opened.pool.end();

    const pool = new pg.Pool({ connectionString: 'postgres://127.0.0.1:1/x' });
    const given = await openPostgresPool({ pool }, names);
    expect(given).toMatchObject({ pool, owned: false, where: 'the given pg.Pool' });
    await pool.end();
  });

  it('names the database without its password when connecting fails', async () => {
    const port = await closedPort();
    const opened = await openPostgresPool(
      { connectionString: `postgres://svc:s3cret@127.0.0.1:${port}/svc`, connectTimeoutMs: 2000 },
      names,
    );
    try {
      const error = await connectPostgresClient(opened).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(ServiceError.is(error)).toBe(true);
      const message = (error as Error).message;
      expect(message).toContain(
        `cannot use the thing database at postgres://svc:***@127.0.0.1:${port}/svc: `,
      );
      expect(message).toContain('ECONNREFUSED');
      expect(message).not.toContain('s3cret');
    } finally {
      await opened.pool.end();
    }
  });
});
