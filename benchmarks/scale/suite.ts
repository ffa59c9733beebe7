// The scale-out benchmarks (issue 13, DESIGN §10): the Postgres store against the SQLite
// default, then workers added on Postgres + BullMQ. They need DATABASE_URL and REDIS_URL, like
// the tests; without them the Postgres rows are left out and the suite says why.
import type { Measurement } from '../lib/measure.js';
import { runStoreComparison } from './stores.js';

export async function runScaleBenchmark(): Promise<Measurement[]> {
  const databaseUrl = process.env.DATABASE_URL || undefined;
  return runStoreComparison(databaseUrl);
}
