import pg from 'pg';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { PgDriver, PgPool, PgPoolClient, PgQueryable, PgQueryResult } from './pg-types.js';

// The declarations in pg-types.ts stand in for @types/pg in every published .d.ts; these checks
// fail the typecheck (tsconfig.check.json covers tests) the day pg's real types stop fitting them.
describe('pg-types', () => {
  it("pg's module, Pool, PoolClient and QueryResult are assignable to the local declarations", async () => {
    expectTypeOf(pg).toExtend<PgDriver>();
    expectTypeOf<pg.Pool>().toExtend<PgPool>();
    expectTypeOf<pg.PoolClient>().toExtend<PgPoolClient>();
    expectTypeOf<pg.Client>().toExtend<PgQueryable>();
    expectTypeOf<pg.QueryResult<{ n: number }>>().toExtend<PgQueryResult<{ n: number }>>();

    // And in plain assignments, the way an app passes them.
    const driver: PgDriver = pg;
    const pool: PgPool = new driver.Pool({
      connectionString: 'postgres://127.0.0.1:1/x',
      max: 1,
      connectionTimeoutMillis: 1000,
    });
    expect(pool).toBeInstanceOf(pg.Pool);
    await pool.end();
  });
});
