import type { Store } from '@svc/batch-runner';
import { ATTEMPT_IN_PROGRESS } from '@svc/batch-runner';
import { expect, it } from 'vitest';
import { type DeliveryView, firstAttempt } from './deliveries.js';

it('waits past an attempt logged as in progress for the one with its outcome', async () => {
  const event = (attempts: DeliveryView['attempts'], state: DeliveryView['state']): DeliveryView => ({
    eventId: 'evt_1',
    jobId: 'batch_1',
    type: 'batch.completed',
    url: 'https://h.test/x',
    created: 1,
    state,
    nextAttemptAt: null,
    attempts,
  });
  // What a reader sees while the request is out, then once the outcome is recorded.
  const answers = [
    event([{ at: 1, status: null, latencyMs: 0, error: ATTEMPT_IN_PROGRESS, inProgress: true }], 'pending'),
    event([{ at: 1, status: 200, latencyMs: 5, error: null }], 'delivered'),
  ];
  let reads = 0;
  const store = {
    deliveries: async () => [answers[Math.min(reads++, 1)] as DeliveryView],
  } as unknown as Store;
  expect(await firstAttempt(store, 'batch_1')).toMatchObject({
    state: 'delivered',
    attempts: [{ status: 200 }],
  });
});
