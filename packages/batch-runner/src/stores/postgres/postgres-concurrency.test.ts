import { POSTGRES, scratchSchemas, serviceUrl } from '@svc/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { createBatchRunner } from '../../runner/runner.js';
import type { ChunkLease, NewJob, RecordResult, Store } from '../../store.js';
import { createPostgresStore } from './store.js';

const url = await serviceUrl(POSTGRES, 'the Postgres batch store under concurrent processes');

const job = (id: string, records: number, chunkSize: number): NewJob => ({
  id,
  type: 'geo_ip',
  records: Array.from({ length: records }, (_, index) => `10.0.${index >> 8}.${index & 255}`),
  webhook_url: 'https://hooks.example.test/x',
  idempotency_key: null,
  request_hash: null,
  chunkSize,
  now: new Date(),
});
const okResults = (lease: ChunkLease): RecordResult[] =>
  lease.records.map(({ index, input }) => ({
    index,
    input,
    ok: true,
    result: { n: index },
    countKey: 'found',
  }));

// Two pools on one schema are two processes as far as Postgres is concerned: separate
// connections, separate transactions, only the database in common.
describe.skipIf(!url)('Postgres store: two processes on one schema', () => {
  const schemas = scratchSchemas(url as string);
  const open: Store[] = [];
  const twoStores = async () => {
    const schema = schemas.next();
    const stores = await Promise.all([
      createPostgresStore({ connectionString: url as string, schema, poolSize: 4 }),
      createPostgresStore({ connectionString: url as string, schema, poolSize: 4 }),
    ]);
    open.push(...stores);
    return stores;
  };
  afterAll(async () => {
    await Promise.all(open.map((store) => store.close()));
    await schemas.drop();
  });

  it('never hands the same chunk to two claimers, and commits every chunk once', async () => {
    const [a, b] = (await twoStores()) as [Store, Store];
    await a.createJob(job('batch_concurrent1', 600, 5)); // 120 chunks
    const claimed: string[] = [];
    const claimer = async (store: Store, owner: string) => {
      for (let lease = await store.claimChunk(owner, Date.now(), 60_000); lease; ) {
        claimed.push(`${lease.jobId}/${lease.chunk}`);
        expect(await store.commitChunk(lease, okResults(lease), Date.now())).toBe('committed');
        lease = await store.claimChunk(owner, Date.now(), 60_000);
      }
    };
    // Eight claimers at once, four on each "process".
    await Promise.all([
      ...[1, 2, 3, 4].map((n) => claimer(a, `a${n}`)),
      ...[1, 2, 3, 4].map((n) => claimer(b, `b${n}`)),
    ]);
    expect(claimed).toHaveLength(120);
    expect(new Set(claimed).size).toBe(120);
    const done = await b.getJob('batch_concurrent1');
    expect(done).toMatchObject({ status: 'completed', processed: 600, failed: 0, counts: { found: 600 } });
    // One completion event, however many processes committed chunks.
    expect((await a.deliveries('batch_concurrent1')).map((event) => event.type)).toEqual(['batch.completed']);
  });

  it('gives one job to concurrent submissions of one idempotency key from two processes', async () => {
    const [a, b] = (await twoStores()) as [Store, Store];
    const submit = (store: Store, n: number) =>
      store.createJob({ ...job(`batch_idem${n}`, 10, 5), account_id: 'acct_i', idempotency_key: 'same-key' });
    const outcomes = await Promise.all(Array.from({ length: 6 }, (_, n) => submit(n % 2 ? a : b, n)));
    expect(outcomes.filter((outcome) => outcome.created)).toHaveLength(1);
    expect(new Set(outcomes.map((outcome) => outcome.job.id)).size).toBe(1);
    expect((await a.listJobs({ limit: 10, accountId: 'acct_i' })).data).toHaveLength(1);
  });

  it('commits a chunk delivered twice once: concurrent commits of one lease, and a stale owner', async () => {
    const [a, b] = (await twoStores()) as [Store, Store];
    await a.createJob(job('batch_twice1', 4, 2));
    // A stale owner and the new one commit at the same moment: only the holder's commit counts.
    const stale = (await a.claimChunk('a', 1000, 100)) as ChunkLease;
    const fresh = (await b.claimChunk('b', 2000, 60_000)) as ChunkLease;
    expect(fresh.chunk).toBe(stale.chunk);
    const [first, second] = await Promise.all([
      a.commitChunk(stale, okResults(stale), 2100),
      b.commitChunk(fresh, okResults(fresh), 2100),
    ]);
    expect([first, second]).toEqual(['lost_lease', 'committed']);
    // The same lease committed from both processes at once (a queue that redelivered it).
    const lease = (await a.claimChunk('a', 3000, 60_000)) as ChunkLease;
    const outcomes = await Promise.all([
      a.commitChunk(lease, okResults(lease), 3100),
      b.commitChunk(lease, okResults(lease), 3100),
    ]);
    expect(outcomes.sort()).toEqual(['committed', 'lost_lease']);
    expect(await a.getJob('batch_twice1')).toMatchObject({
      status: 'completed',
      processed: 4,
      counts: { found: 4 },
    });
    const results = await b.results('batch_twice1', { limit: 10 });
    expect(results.data.map((result) => result.index)).toEqual([0, 1, 2, 3]);
  });

  it('lets a cancel and commits of one job race without deadlock or lost counts', async () => {
    const [a, b] = (await twoStores()) as [Store, Store];
    await a.createJob(job('batch_cancelrace', 200, 2)); // 100 chunks
    const leases = (
      await Promise.all(
        Array.from({ length: 20 }, (_, n) => (n % 2 ? a : b).claimChunk(`w${n}`, 1000, 60_000)),
      )
    ).filter((lease): lease is ChunkLease => lease !== null);
    expect(leases).toHaveLength(20);
    const [cancelled, ...commits] = await Promise.all([
      b.cancelJob('batch_cancelrace', 1500),
      ...leases.map((lease, n) => (n % 2 ? b : a).commitChunk(lease, okResults(lease), 1500)),
    ]);
    expect(cancelled?.status).toBe('cancelled');
    const committed = commits.filter((outcome) => outcome === 'committed').length;
    const after = await a.getJob('batch_cancelrace');
    // Whatever committed before the cancel is counted, nothing after it.
    expect(after).toMatchObject({ status: 'cancelled', processed: committed * 2 });
    expect((await a.results('batch_cancelrace', { limit: 1000 })).data).toHaveLength(committed * 2);
    expect(await a.claimChunk('late', 2000, 60_000)).toBeNull();
  });

  it('runs one job on two runners (one per process): every record once, counters exact', async () => {
    const [a, b] = (await twoStores()) as [Store, Store];
    const chunksBy = { a: 0, b: 0 };
    const runnerOn = (store: Store, name: 'a' | 'b') =>
      createBatchRunner({
        store,
        chunkSize: 50,
        pollIntervalMs: 20,
        processors: [
          {
            type: 'geo_ip',
            async process(records) {
              chunksBy[name]++;
              await new Promise((resolve) => setTimeout(resolve, 5));
              return records.map(({ index }) => ({
                index,
                ok: true as const,
                result: { index },
                countKey: 'found',
              }));
            },
          },
        ],
      });
    const runners = [runnerOn(a, 'a'), runnerOn(b, 'b')];
    const submitted = await runners[0]!.submit({
      type: 'geo_ip',
      records: Array.from({ length: 5000 }, (_, index) => `10.1.${index >> 8}.${index & 255}`),
    });
    for (const runner of runners) runner.start();
    let status = submitted.status;
    for (let waited = 0; status !== 'completed' && waited < 30_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      status = (await runners[1]!.get(submitted.id)).status;
    }
    await Promise.all(runners.map((runner) => runner.close()));
    const finished = await runners[1]!.get(submitted.id);
    expect(finished).toMatchObject({
      status: 'completed',
      processed: 5000,
      failed: 0,
      counts: { found: 5000 },
    });
    expect(chunksBy.a + chunksBy.b).toBe(100);
    expect(chunksBy.a).toBeGreaterThan(0);
    expect(chunksBy.b).toBeGreaterThan(0);
    const seen = new Set<number>();
    let cursor: string | null = null;
    do {
      const page = await runners[0]!.results(submitted.id, { cursor, limit: 1000 });
      for (const result of page.data) seen.add(result.index);
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen.size).toBe(5000);
  });
});
