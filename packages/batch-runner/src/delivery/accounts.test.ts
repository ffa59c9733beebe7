import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWebhookReceiver, type WebhookDelivery, type WebhookReceiver } from '@svc/testkit';
import { verifyPayload } from '@svc/webhooks';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import type { Store } from '../store.js';
import { createMemoryStore } from '../stores/memory.js';
import { createSqliteStore } from '../stores/sqlite.js';
import { finishedGeoJob } from '../testing/jobs.js';
import { createWebhookDispatcher, type WebhookSecretsQuery } from './dispatcher.js';

const dir = mkdtempSync(join(tmpdir(), 'outbox-accounts-'));
let file = 0;
const stores: Array<[string, () => Promise<Store>]> = [
  ['memory', async () => createMemoryStore()],
  ['SQLite', async () => createSqliteStore({ path: join(dir, `outbox-${++file}.db`) })],
];
/** A secret as the server makes them: `whsec_` + 24 random bytes in base64 (Standard Webhooks' format). */
const serverSecret = () => `whsec_${randomBytes(24).toString('base64')}`;
const loopback = (ip: string) => ip.startsWith('127.');

let receiver: WebhookReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

/** A finished one-record job of `accountId` whose completion event waits in the outbox. */
const finishedJob = (store: Store, url: string, accountId: string | null, start = Date.now()) =>
  finishedGeoJob(store, `batch_acct${String(++file).padStart(6, '0')}`, start, {
    account_id: accountId,
    webhook_url: url,
  });

/** The delivery's headers as a plain record, for the standardwebhooks package. */
const headersOf = (delivery: WebhookDelivery | undefined) =>
  Object.fromEntries(Object.entries(delivery?.headers ?? {}).map(([name, value]) => [name, String(value)]));

describe.each(stores)('webhook delivery for accounts on the %s store', (_name, makeStore) => {
  it('sends the Standard Webhooks headers beside X-Service-Signature; the standardwebhooks package verifies them', async () => {
    receiver = await startWebhookReceiver();
    const store = await makeStore();
    const [newer, older] = [serverSecret(), serverSecret()];
    const jobId = await finishedJob(store, `${receiver.url}/hook`, null);
    await createWebhookDispatcher({
      store,
      secrets: [newer, older],
      isAllowedAddress: loopback,
    }).deliverDue();
    const delivery = receiver.deliveries[0];
    const body = delivery?.body.toString() ?? '';
    const headers = headersOf(delivery);
    const [event] = await store.deliveries(jobId);
    expect(headers['webhook-id']).toBe(event?.eventId);
    expect(JSON.parse(body).id).toBe(event?.eventId);
    expect(headers['webhook-timestamp']).toBe(/t=(\d+)/.exec(headers['x-service-signature'] ?? '')?.[1]);
    // During a rotation both secrets sign, in both formats; either one verifies.
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    for (const secret of [newer, older]) {
      expect(new Webhook(secret).verify(body, headers)).toMatchObject({ id: event?.eventId });
      expect(verifyPayload(body, headers['x-service-signature'] ?? '', secret)).toMatchObject({
        type: 'batch.completed',
      });
    }
    expect(() => new Webhook(serverSecret()).verify(body, headers)).toThrow();
    await store.close();
  });

  it('signs with a secret that is not base64 as raw bytes (standardwebhooks format: raw)', async () => {
    receiver = await startWebhookReceiver();
    const store = await makeStore();
    await finishedJob(store, `${receiver.url}/hook`, null);
    const secret = 'my own secret: not base64';
    await createWebhookDispatcher({ store, secrets: [secret], isAllowedAddress: loopback }).deliverDue();
    const delivery = receiver.deliveries[0];
    const raw = new Webhook(secret, { format: 'raw' });
    expect(raw.verify(delivery?.body.toString() ?? '', headersOf(delivery))).toMatchObject({
      object: 'event',
    });
    await store.close();
  });

  it("signs each account's events with that account's secrets, asked per attempt", async () => {
    receiver = await startWebhookReceiver();
    const store = await makeStore();
    const secrets: Record<string, string[]> = { acct_a: [serverSecret()], acct_b: [serverSecret()] };
    const asked: WebhookSecretsQuery[] = [];
    const jobA = await finishedJob(store, `${receiver.url}/a`, 'acct_a');
    const jobB = await finishedJob(store, `${receiver.url}/b`, 'acct_b');
    const jobC = await finishedJob(store, `${receiver.url}/c`, 'acct_c');
    await createWebhookDispatcher({
      store,
      secretsFor: async (query) => {
        asked.push(query);
        return secrets[query.accountId ?? ''] ?? [];
      },
      isAllowedAddress: loopback,
    }).deliverDue();
    expect(asked.map((query) => [query.accountId, query.jobId])).toEqual(
      expect.arrayContaining([
        ['acct_a', jobA],
        ['acct_b', jobB],
        ['acct_c', jobC],
      ]),
    );
    const byPath = new Map(receiver.deliveries.map((delivery) => [delivery.path, delivery]));
    for (const [path, account, other] of [
      ['/a', 'acct_a', 'acct_b'],
      ['/b', 'acct_b', 'acct_a'],
    ] as const) {
      const delivery = byPath.get(path);
      const body = delivery?.body.toString() ?? '';
      expect(new Webhook(secrets[account]?.[0] ?? '').verify(body, headersOf(delivery))).toBeTruthy();
      expect(() => new Webhook(secrets[other]?.[0] ?? '').verify(body, headersOf(delivery))).toThrow();
    }
    // No secret for the account: nothing is sent, the attempt says why and the schedule retries.
    expect(byPath.has('/c')).toBe(false);
    const [event] = await store.deliveries(jobC);
    expect(event).toMatchObject({ state: 'pending' });
    expect(event?.attempts[0]).toMatchObject({
      status: null,
      error: 'no webhook signing secret for account acct_c',
    });
    await store.close();
  });

  it('resends a failed event: the same event id, one more attempt, delivered; other accounts cannot', async () => {
    // Fails the schedule's 11 attempts, then answers 200.
    receiver = await startWebhookReceiver({ failFirst: 11 });
    const store = await makeStore();
    let clock = Date.parse('2026-11-23T10:00:00Z');
    const dispatcher = createWebhookDispatcher({
      store,
      secrets: ['whsec_test'],
      isAllowedAddress: loopback,
      now: () => clock,
      random: () => 0.5,
      timeoutMs: 500,
    });
    const jobId = await finishedJob(store, `${receiver.url}/hook`, 'acct_a', clock);
    for (let step = 0; step < 20; step++) {
      await dispatcher.deliverDue();
      const [event] = await store.deliveries(jobId);
      if (event?.nextAttemptAt == null) break;
      clock = event.nextAttemptAt;
    }
    const [failed] = await store.deliveries(jobId);
    expect(failed).toMatchObject({ state: 'failed' });
    expect(failed?.attempts).toHaveLength(11);
    const eventId = failed?.eventId as string;

    expect(await dispatcher.resend(eventId, { accountId: 'acct_b' })).toBeNull();
    expect(await dispatcher.resend('evt_unknown')).toBeNull();
    expect(receiver.deliveries).toHaveLength(11);

    clock += 3_600_000;
    const resent = await dispatcher.resend(eventId, { accountId: 'acct_a' });
    expect(resent).toMatchObject({ eventId, state: 'delivered', nextAttemptAt: null });
    expect(resent?.attempts).toHaveLength(12);
    expect(resent?.attempts.at(-1)).toMatchObject({ at: clock, status: 200, trigger: 'resend' });
    expect(resent?.attempts[0]).not.toHaveProperty('trigger');
    const ids = receiver.deliveries.map((delivery) => JSON.parse(delivery.body.toString()).id);
    expect(new Set(ids)).toEqual(new Set([eventId]));
    expect(receiver.deliveries.at(-1)?.headers['webhook-id']).toBe(eventId);
    await store.close();
  });

  it('a failed resend of a finished event leaves it finished (no new schedule)', async () => {
    receiver = await startWebhookReceiver({ status: 503 });
    const store = await makeStore();
    const dispatcher = createWebhookDispatcher({
      store,
      secrets: ['whsec_test'],
      isAllowedAddress: loopback,
    });
    const jobId = await finishedJob(store, `${receiver.url}/hook`, null);
    // Mark it delivered the way a resend would find an old event: one successful attempt.
    const first = await store.claimDelivery('x', Date.now(), 1000);
    await store.recordAttempt(
      first!,
      { at: Date.now(), status: 200, latencyMs: 1, error: null },
      { state: 'delivered' },
    );
    const resent = await dispatcher.resend(first!.eventId);
    expect(resent).toMatchObject({ state: 'delivered', nextAttemptAt: null });
    expect(resent?.attempts.map((attempt) => attempt.status)).toEqual([200, 503]);
    expect(await store.claimDelivery('y', Date.now() + 86_400_000, 1000)).toBeNull();
    expect((await store.deliveries(jobId))[0]?.attempts).toHaveLength(2);
    await store.close();
  });

  it('a resend can have its own, shorter timeout (a caller waiting within an HTTP deadline)', async () => {
    receiver = await startWebhookReceiver({ hang: true });
    const store = await makeStore();
    const dispatcher = createWebhookDispatcher({
      store,
      secrets: ['whsec_test'],
      isAllowedAddress: loopback,
      timeoutMs: 30_000,
    });
    const jobId = await finishedJob(store, `${receiver.url}/hook`, null);
    const [event] = await store.deliveries(jobId);
    // The receiver hangs and the dispatcher's own timeout is 30 s: the error names the resend's.
    const resent = await dispatcher.resend(event?.eventId as string, undefined, { timeoutMs: 150 });
    expect(resent?.attempts.at(-1)).toMatchObject({
      status: null,
      error: 'no response within 150 ms',
      trigger: 'resend',
    });
    // It was still on its schedule (never tried): it stays there.
    expect(resent?.state).toBe('pending');
    await store.close();
  });
});
