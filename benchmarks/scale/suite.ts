// The scale-out benchmarks (issue 13, DESIGN §10): the Postgres store against the SQLite
// default, then worker processes added on Postgres + BullMQ. They need DATABASE_URL and
// REDIS_URL, like the tests; without them the rows that need a server are left out and the
// suite says why.
import type { Measurement } from '../lib/measure.js';
import { runStoreComparison } from './stores.js';
import { runWorkerScaling } from './workers.js';

export async function runScaleBenchmark(): Promise<Measurement[]> {
  const databaseUrl = process.env.DATABASE_URL || undefined;
  const redisUrl = process.env.REDIS_URL || undefined;
  const rows = await runStoreComparison(databaseUrl);
  if (databaseUrl && redisUrl) rows.push(...(await runWorkerScaling(databaseUrl, redisUrl)));
  else
    console.log(
      '\nScale 2 (worker processes on Postgres + BullMQ) needs DATABASE_URL and REDIS_URL, e.g. ' +
        'DATABASE_URL=postgres://postgres@127.0.0.1:5432/test REDIS_URL=redis://127.0.0.1:6379.',
    );
  return rows;
}
