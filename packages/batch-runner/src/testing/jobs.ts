import type { NewJob, Store } from '../store.js';

/**
 * A one-record geo_ip job (8.8.8.8, chunks of ten, no webhook or keys, created now): the job a
 * store test makes when what it checks is not the job's content. `overrides` change any field.
 */
export const geoJob = (id: string, overrides: Partial<NewJob> = {}): NewJob => ({
  id,
  type: 'geo_ip',
  records: ['8.8.8.8'],
  webhook_url: null,
  idempotency_key: null,
  request_hash: null,
  chunkSize: 10,
  now: new Date(),
  ...overrides,
});

/**
 * A {@link geoJob} created at `start` and finished at once (its one record located), so its
 * completion event waits in the outbox; returns the job's id.
 */
export async function finishedGeoJob(
  store: Store,
  id: string,
  start: number,
  overrides: Partial<NewJob> = {},
) {
  const { job } = await store.createJob(geoJob(id, { now: new Date(start), ...overrides }));
  const lease = await store.claimChunk('w', start, 1000);
  await store.commitChunk(
    lease!,
    [{ index: 0, input: '8.8.8.8', ok: true, result: {}, countKey: 'located' }],
    start,
  );
  return job.id;
}
