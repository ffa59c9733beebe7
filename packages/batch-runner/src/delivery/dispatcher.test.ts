import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWebhookReceiver, type WebhookReceiver } from '@svc/testkit';
import { verifyPayload } from '@svc/webhooks';
import { afterEach, describe, expect, it } from 'vitest';
import type { Store } from '../store.js';
import { ATTEMPT_INTERRUPTED } from '../stores/attempt-log.js';
import { createMemoryStore } from '../stores/memory.js';
import { createSqliteStore } from '../stores/sqlite.js';
import { finishedGeoJob } from '../testing/jobs.js';
import { createWebhookDispatcher } from './dispatcher.js';
import { DELIVERY_WINDOW_MS } from './schedule.js';

const dir = mkdtempSync(join(tmpdir(), 'outbox-'));
let file = 0;
const stores: Array<[string, () => Promise<Store>]> = [
  ['memory', async () => createMemoryStore()],
  ['SQLite', async () => createSqliteStore({ path: join(dir, `outbox-${++file}.db`) })],
];
const SECRET = 'whsec_test';
let receiver: WebhookReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

/** A finished one-record job whose completion event sits in the outbox, and a clock to drive. */
const finishedJob = (store: Store, url: string, start: number) =>
  finishedGeoJob(store, `batch_outbox${++file}`, start, { webhook_url: url });

describe.each(stores)('webhook outbox on the %s store', (_name, makeStore) => {
  const setup = async (behaviour: Parameters<typeof startWebhookReceiver>[0]) => {
    receiver = await startWebhookReceiver(behaviour);
    const store = await makeStore();
    let clock = Date.parse('2026-11-23T10:00:00Z');
    const dispatcher = createWebhookDispatcher({
      store,
      secrets: [SECRET],
      isAllowedAddress: (ip) => ip.startsWith('127.'),
      now: () => clock,
      random: () => 0.5,
      timeoutMs: 200,
    });
    const jobId = await finishedJob(store, `${receiver.url}/hook`, clock);
    // Runs the whole schedule in milliseconds: jump the clock to each next attempt.
    const drive = async () => {
      for (let step = 0; step < 20; step++) {
        await dispatcher.deliverDue();
        const [event] = await store.deliveries(jobId);
        if (!event || event.nextAttemptAt === null) return event;
        clock = event.nextAttemptAt;
      }
      throw new Error('the schedule did not end');
    };
    return { store, jobId, drive, start: clock };
  };

  it('delivers a signed completion event once the receiver recovers, same event id every time', async () => {
    const { drive } = await setup({ failFirst: 3 });
    const event = await drive();
    expect(event).toMatchObject({ type: 'batch.completed', state: 'delivered' });
    expect(event?.attempts.map((attempt) => attempt.status)).toEqual([500, 500, 500, 200]);
    const deliveries = receiver?.deliveries ?? [];
    expect(new Set(deliveries.map((delivery) => JSON.parse(delivery.body.toString()).id)).size).toBe(1);
    const last = deliveries.at(-1);
    const signature = last?.headers['x-service-signature'] as string;
    const timestamp = Number(/t=(\d+)/.exec(signature)?.[1]);
    const parsed = verifyPayload(last?.body ?? '', signature, SECRET, { now: timestamp });
    expect(parsed).toMatchObject({
      object: 'event',
      type: 'batch.completed',
      data: { object: { object: 'batch_job', status: 'completed' } },
    });
    expect(last?.headers['content-type']).toBe('application/json');
    expect(last?.headers['user-agent']).toMatch(/svc-batch-runner/);
    // Re-signed with a fresh timestamp per attempt.
    expect(
      new Set(
        deliveries.map((delivery) => /t=(\d+)/.exec(String(delivery.headers['x-service-signature']))?.[1]),
      ).size,
    ).toBe(4);
  });

  it('stops at 410 Gone', async () => {
    const { drive } = await setup({ status: 410 });
    const event = await drive();
    expect(event).toMatchObject({ state: 'gone' });
    expect(event?.attempts).toHaveLength(1);
  });

  it('retries a receiver that answers 500 forever on the schedule and gives up after 24 h', async () => {
    const { drive, start } = await setup({ status: 500 });
    const event = await drive();
    expect(event?.state).toBe('failed');
    const offsets = event?.attempts.map((attempt) => attempt.at - start) ?? [];
    expect(offsets).toEqual([
      0, 5_000, 60_000, 300_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000, 28_800_000, 57_600_000,
      86_400_000,
    ]);
    expect(Math.max(...offsets)).toBeLessThanOrEqual(DELIVERY_WINDOW_MS);
  });

  it('treats a hanging receiver as a failed attempt after the timeout and logs why', async () => {
    const { store, jobId, start } = await setup({ hang: true });
    const dispatcher = createWebhookDispatcher({
      store,
      secrets: [SECRET],
      isAllowedAddress: () => true,
      timeoutMs: 100,
      now: () => start,
    });
    await dispatcher.deliverDue();
    const [event] = await store.deliveries(jobId);
    expect(event?.state).toBe('pending');
    expect(event?.attempts[0]).toMatchObject({ status: null, error: 'no response within 100 ms' });
  });

  it('honours Retry-After within the window', async () => {
    const { drive, start } = await setup({ failFirst: 1, retryAfter: '600' });
    const event = await drive();
    expect(event?.attempts.map((attempt) => attempt.at - start)).toEqual([0, 600_000]);
  });

  it('close() stops after the attempt in flight, leaving a backlog of due events for later', async () => {
    receiver = await startWebhookReceiver({ hang: true });
    const store = await makeStore();
    const start = Date.now();
    const jobs = [];
    for (let job = 0; job < 3; job++) jobs.push(await finishedJob(store, `${receiver.url}/hook`, start));
    const dispatcher = createWebhookDispatcher({
      store,
      secrets: [SECRET],
      isAllowedAddress: (ip) => ip.startsWith('127.'),
      timeoutMs: 500,
      pollIntervalMs: 10,
    });
    dispatcher.start();
    await expect.poll(() => receiver?.deliveries.length ?? 0).toBe(1);
    await dispatcher.close();
    // One hanging attempt at most, not one 500 ms timeout per due event: the other two events were
    // never tried (counted, not timed).
    expect(receiver?.deliveries).toHaveLength(1);
    const attempts = await Promise.all(
      jobs.map(async (id) => (await store.deliveries(id))[0]?.attempts.length ?? 0),
    );
    expect(attempts.sort()).toEqual([0, 0, 1]);
  });

  it('keeps both attempts of an event sent twice after a crash between sending and recording', async () => {
    receiver = await startWebhookReceiver();
    const store = await makeStore();
    let clock = Date.parse('2026-11-23T10:00:00Z');
    const jobId = await finishedJob(store, `${receiver.url}/hook`, clock);
    // The first deliverer sends, then dies before it records the outcome (its store write never happens).
    const crashing: Store = {
      ...store,
      beginAttempt: (delivery, begun) => store.beginAttempt(delivery, begun),
      recordAttempt: async () => {
        throw new Error('killed after sending');
      },
    };
    const options = {
      secrets: [SECRET],
      isAllowedAddress: (ip: string) => ip.startsWith('127.'),
      now: () => clock,
      random: () => 0.5,
    };
    await expect(createWebhookDispatcher({ ...options, store: crashing }).deliverDue()).rejects.toThrow(
      'killed after sending',
    );
    expect(receiver.deliveries).toHaveLength(1);
    // Another process picks the event up once the dead one's 60 s lease has run out.
    clock += 61_000;
    expect(await createWebhookDispatcher({ ...options, store }).deliverDue()).toBe(1);
    const ids = receiver.deliveries.map((delivery) => JSON.parse(delivery.body.toString()).id);
    expect(ids).toHaveLength(2);
    expect(ids[1]).toBe(ids[0]);
    expect(receiver.deliveries[1]?.headers['webhook-id']).toBe(ids[0]);
    const [event] = await store.deliveries(jobId);
    expect(event?.state).toBe('delivered');
    expect(event?.attempts).toEqual([
      { at: clock - 61_000, status: null, latencyMs: 0, error: ATTEMPT_INTERRUPTED },
      { at: clock, status: 200, latencyMs: expect.any(Number), error: null },
    ]);
  });

  it('refuses a private target unless allowed (SSRF guard on by default)', async () => {
    receiver = await startWebhookReceiver();
    const store = await makeStore();
    const jobId = await finishedJob(store, `${receiver.url}/hook`, Date.now());
    await createWebhookDispatcher({ store, secrets: [SECRET] }).deliverDue();
    const [event] = await store.deliveries(jobId);
    expect(event?.attempts[0]?.error).toContain('is a private or reserved address');
    expect(receiver.deliveries).toHaveLength(0);
  });
});
