import { MAX_BATCH_RECORDS } from '@svc/core';
import { POSTGRES, scratchSchemas, serviceUrl } from '@svc/testkit';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createBatchRunner } from '../../runner/runner.js';
import { createPostgresStore } from './store.js';

const url = await serviceUrl(POSTGRES, 'a 50,000-record job on the Postgres batch store');

describe.skipIf(!url)('Postgres store: a full-size job', () => {
  const schemas = scratchSchemas(url as string);
  afterAll(() => schemas.drop());

  it('runs a 50,000-record job end to end: bulk writes, exact counters, every result exported once', async () => {
    const schema = schemas.next();
    const store = await createPostgresStore({ connectionString: url as string, schema });
    const runner = createBatchRunner({
      store,
      pollIntervalMs: 20,
      processors: [
        {
          type: 'verify_email',
          async process(records) {
            return records.map(({ index, input }) =>
              index % 10 === 0
                ? { index, ok: false as const, error: { code: 'invalid', message: 'no @' } }
                : { index, ok: true as const, result: { email: input }, countKey: 'deliverable' },
            );
          },
        },
      ],
    });
    expect(MAX_BATCH_RECORDS).toBe(50_000);
    const records = Array.from({ length: MAX_BATCH_RECORDS }, (_, index) => `user${index}@example.test`);
    const job = await runner.submit({ type: 'verify_email', records });
    runner.start();
    // The runner says when nothing is left to claim and nothing is in flight.
    await runner.idle();
    await runner.close();
    expect(await runner.get(job.id)).toMatchObject({
      status: 'completed',
      processed: 50_000,
      failed: 5_000,
      counts: { deliverable: 45_000 },
    });
    // Results went in one multi-row INSERT per chunk: as many rows as records, none twice.
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const { rows } = await admin.query(
      `SELECT count(*)::int AS n, count(DISTINCT idx)::int AS distinct_n, max(idx) AS last FROM "${schema}".results WHERE job_id = $1`,
      [job.id],
    );
    await admin.end();
    expect(rows[0]).toEqual({ n: 50_000, distinct_n: 50_000, last: 49_999 });
    // The export streams page by page (keyset on the primary key), in record order.
    let lines = 0;
    let previous = -1;
    let buffered = '';
    for await (const chunk of await runner.export(job.id, 'ndjson')) {
      buffered += chunk;
      const complete = buffered.split('\n');
      buffered = complete.pop() as string;
      for (const line of complete) {
        const { index } = JSON.parse(line) as { index: number };
        expect(index).toBe(previous + 1);
        previous = index;
        lines++;
      }
    }
    expect(lines).toBe(50_000);
    await store.close();
  }, 180_000);
});
