import {
  type BatchRunner,
  createBatchRunner,
  createGeoIpProcessor,
  createMemoryStore,
  createVerifyEmailProcessor,
} from '@svc/batch-runner';
import { startWebhookReceiver, type WebhookDelivery, type WebhookReceiver } from '@svc/testkit';
import { verifyPayload } from '@svc/webhooks';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerOptions } from '../options.js';
import { createSandboxVerifier } from '../sandbox.js';
import { createTestServer, fixtureGeoResolver, type TestServer } from '../testing/test-server.js';
import { batchResultsPath } from './batch.js';
import { accountWebhookSecrets, refusedWebhookTarget } from './batch-webhooks.js';

let receiver: WebhookReceiver | undefined;
let runner: BatchRunner | undefined;
let server: TestServer | undefined;
afterEach(async () => {
  await runner?.close({ timeoutMs: 100 });
  await server?.app.close();
  await receiver?.close();
  receiver = runner = server = undefined;
});

/** The live verifier of these tests: it records what it is asked and opens no socket either. */
const liveAsked: string[] = [];
const liveVerifier = {
  async verifyMany(emails: readonly string[]) {
    liveAsked.push(...emails);
    return emails.map((email) => ({ email, state: 'risky' }));
  },
};

/** IPs of MaxMind's City test database, and one private address (a per-record invalid_ip error). */
const IPS = ['81.2.69.142', '2.125.160.216', '10.0.0.1', '81.2.69.160', '89.160.20.112'];

/**
 * The server with the batch routes, a running geo_ip runner over a memory store signing with each
 * account's secrets, and webhook targets on loopback allow-listed (unless `allowLoopback` is false).
 */
async function setup({
  allowLoopback = true,
  batch,
  start = true,
}: {
  allowLoopback?: boolean;
  batch?: ServerOptions['batch'];
  start?: boolean;
} = {}) {
  const store = createMemoryStore();
  const holder: { runner?: BatchRunner } = {};
  server = await createTestServer({
    batch: {
      store,
      get runner() {
        return holder.runner ?? null;
      },
    },
    options: {
      webhooks: { allowPrivateTargets: allowLoopback ? ['127.0.0.0/8'] : [] },
      ...(batch && { batch }),
    },
  });
  runner = createBatchRunner({
    store,
    processors: [
      createGeoIpProcessor(await fixtureGeoResolver()),
      createVerifyEmailProcessor(liveVerifier, { sandbox: createSandboxVerifier() }),
    ],
    pollIntervalMs: 5,
    resultsUrl: batchResultsPath,
    webhooks: {
      secretsFor: accountWebhookSecrets(server.app.svc),
      isAllowedAddress: () => true,
      pollIntervalMs: 10,
      timeoutMs: 2000,
    },
  });
  holder.runner = runner;
  if (start) runner.start();
  return server;
}

type Call = { method?: string; url: string; key: string; body?: unknown; headers?: Record<string, string> };
async function call(s: TestServer, { method = 'GET', url, key, body, headers = {} }: Call) {
  const response = await s.app.inject({
    method: method as 'GET',
    url,
    headers: { 'x-api-key': key, ...headers },
    ...(body === undefined ? {} : typeof body === 'string' ? { payload: body } : { payload: body as object }),
  });
  return {
    status: response.statusCode,
    headers: response.headers,
    text: response.body,
    json: () => JSON.parse(response.body),
  };
}

async function waitFor(s: TestServer, id: string, key: string, status = 'completed') {
  await expect
    .poll(async () => (await call(s, { url: `/v2/batch/${id}`, key })).json().status, {
      timeout: 5000,
      interval: 20,
    })
    .toBe(status);
}

const headersOf = (delivery: WebhookDelivery | undefined) =>
  Object.fromEntries(Object.entries(delivery?.headers ?? {}).map(([name, value]) => [name, String(value)]));

describe('batch routes', () => {
  it('limits test keys’ sandbox jobs per account: records waiting and jobs a day, 429 with Retry-After; live keys are not', async () => {
    const s = await setup({ batch: { sandboxJobsPerDay: 2, sandboxRecordsInFlight: 6 }, start: false });
    const { liveKey, testKey } = await s.account('free');
    const submit = (key: string, records: string[]) =>
      call(s, { method: 'POST', url: '/v2/batch', key, body: { type: 'geo_ip', records } });
    const first = await submit(testKey.secret, IPS);
    expect(first.status).toBe(202);
    // 5 records wait (the runner is not started): 2 more pass the 6 allowed.
    const waiting = await submit(testKey.secret, IPS.slice(0, 2));
    expect(waiting.status).toBe(429);
    expect(waiting.headers['retry-after']).toBe('30');
    expect(waiting.json().error).toMatchObject({ code: 'rate_limited' });
    expect(waiting.json().error.message).toContain('may have 6 records waiting to be processed; 5 are');
    expect((await submit(testKey.secret, IPS.slice(0, 1))).status).toBe(202);
    // A job larger than the limit could never fit: a bad request, not a wait.
    expect((await submit(testKey.secret, [...IPS, ...IPS])).json().error.code).toBe('invalid_request');
    // Live keys are billed, not limited this way.
    expect((await submit(liveKey.secret, IPS)).status).toBe(202);
    runner?.start();
    await waitFor(s, first.json().id, testKey.secret);
    // Two jobs today: the third waits for the next UTC day.
    const third = await submit(testKey.secret, IPS.slice(0, 1));
    expect(third.status).toBe(429);
    expect(third.json().error.message).toContain('may create 2 sandbox batch jobs a day (UTC)');
    const untilMidnight = Math.ceil((86_400_000 - (Date.now() % 86_400_000)) / 1000);
    expect(Math.abs(Number(third.headers['retry-after']) - untilMidnight)).toBeLessThanOrEqual(5);
  });

  it('runs a job from submit to results, signs its webhook with the account secret, lists events, resends one', async () => {
    receiver = await startWebhookReceiver();
    const s = await setup();
    const { liveKey, webhookSecret, account } = await s.account('pro');
    const submitted = await call(s, {
      method: 'POST',
      url: '/v2/batch',
      key: liveKey.secret,
      body: { type: 'geo_ip', records: IPS, webhook_url: `${receiver.url}/hook` },
    });
    expect(submitted.status).toBe(202);
    const job = submitted.json();
    expect(job).toMatchObject({
      object: 'batch_job',
      type: 'geo_ip',
      total: 5,
      results_url: `/v2/batch/${job.id}/results`,
    });
    expect(job).not.toHaveProperty('account_id');
    expect(submitted.headers.location).toBe(`/v2/batch/${job.id}`);
    await waitFor(s, job.id, liveKey.secret);
    expect((await call(s, { url: `/v2/batch/${job.id}`, key: liveKey.secret })).json()).toMatchObject({
      processed: 5,
      failed: 1,
      counts: { located: 4 },
    });
    // Billed by records, on the live key, before the 202 left.
    expect(await s.store.usage(account.id, '2026-11')).toEqual([
      { endpoint: 'batch_create', calls: 1, units: 5 },
    ]);

    // Results: signed cursor pages in record order.
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const page = (
        await call(s, { url: `/v2/batch/${job.id}/results?limit=2${query}`, key: liveKey.secret })
      ).json();
      seen.push(...page.data.map((result: { index: number }) => result.index));
      expect(page.has_more).toBe(page.next_cursor !== null);
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual([0, 1, 2, 3, 4]);
    const first = (await call(s, { url: `/v2/batch/${job.id}/results?limit=5`, key: liveKey.secret })).json()
      .data;
    expect(first[0]).toMatchObject({
      index: 0,
      input: '81.2.69.142',
      ok: true,
      error: null,
      result: { ip: '81.2.69.142' },
    });
    expect(first[2]).toMatchObject({ index: 2, ok: false, result: null, error: { code: 'invalid_ip' } });

    const ndjson = await call(s, { url: `/v2/batch/${job.id}/results?format=ndjson`, key: liveKey.secret });
    expect(ndjson.headers['content-type']).toMatch(/^application\/x-ndjson/);
    expect(
      ndjson.text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).index),
    ).toEqual([0, 1, 2, 3, 4]);
    const csv = await call(s, { url: `/v2/batch/${job.id}/results?format=csv`, key: liveKey.secret });
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.text.split('\n')[0]).toMatch(/^index,input,ok,error_code,error_message,/);
    expect(csv.text.trim().split('\n')).toHaveLength(6);

    // The completion webhook, signed with this account's secret in both formats.
    await expect.poll(() => receiver?.deliveries.length, { timeout: 5000 }).toBe(1);
    const delivery = receiver.deliveries[0];
    const body = delivery?.body.toString() ?? '';
    expect(
      verifyPayload(body, headersOf(delivery)['x-service-signature'] ?? '', webhookSecret.secret),
    ).toMatchObject({
      type: 'batch.completed',
      data: { object: { id: job.id, status: 'completed', results_url: `/v2/batch/${job.id}/results` } },
    });
    expect(new Webhook(webhookSecret.secret).verify(body, headersOf(delivery))).toMatchObject({
      id: JSON.parse(body).id,
    });

    // The receiver has the body a moment before the attempt is logged.
    const eventsOf = async () =>
      (await call(s, { url: `/v2/batch/${job.id}/events`, key: liveKey.secret })).json();
    await expect.poll(async () => (await eventsOf()).data[0]?.state, { timeout: 5000 }).toBe('delivered');
    const [event] = (await eventsOf()).data;
    expect(event).toMatchObject({
      id: JSON.parse(body).id,
      type: 'batch.completed',
      job_id: job.id,
      state: 'delivered',
      next_attempt_at: null,
      attempts: [{ status: 200, error: null, trigger: 'schedule' }],
    });
    expect(event.attempts[0].at).toMatch(/^\d{4}-\d\d-\d\dT/);

    const resent = await call(s, {
      method: 'POST',
      url: `/v2/events/${event.id}/resend`,
      key: liveKey.secret,
    });
    expect(resent.status).toBe(200);
    expect(resent.json()).toMatchObject({ id: event.id, state: 'delivered' });
    expect(resent.json().attempts.map((attempt: { trigger: string }) => attempt.trigger)).toEqual([
      'schedule',
      'resend',
    ]);
    expect(receiver.deliveries).toHaveLength(2);
    expect(receiver.deliveries.map((entry) => entry.headers['webhook-id'])).toEqual([event.id, event.id]);
    expect(JSON.parse(receiver.deliveries[1]?.body.toString() ?? '').id).toBe(event.id);
  });

  it("answers 404 for another account's job, results, cancel, events and event resend", async () => {
    receiver = await startWebhookReceiver();
    const s = await setup();
    const a = await s.account('pro', 'a');
    const b = await s.account('pro', 'b');
    const job = (
      await call(s, {
        method: 'POST',
        url: '/v2/batch',
        key: a.testKey.secret,
        body: { type: 'geo_ip', records: IPS.slice(0, 2), webhook_url: `${receiver.url}/a` },
      })
    ).json();
    await waitFor(s, job.id, a.testKey.secret);
    await expect.poll(() => receiver?.deliveries.length, { timeout: 5000 }).toBe(1);
    const eventId = JSON.parse(receiver.deliveries[0]?.body.toString() ?? '').id;
    for (const [method, url] of [
      ['GET', `/v2/batch/${job.id}`],
      ['GET', `/v2/batch/${job.id}/results`],
      ['GET', `/v2/batch/${job.id}/results?format=csv`],
      ['POST', `/v2/batch/${job.id}/cancel`],
      ['GET', `/v2/batch/${job.id}/events`],
      ['POST', `/v2/events/${eventId}/resend`],
      ['GET', '/v2/batch/batch_unknown'],
    ]) {
      const response = await call(s, { method, url: url as string, key: b.liveKey.secret });
      expect(response.status, `${method} ${url}`).toBe(404);
      expect(response.json().error.code).toBe('not_found');
    }
    expect((await call(s, { url: '/v2/batch', key: b.liveKey.secret })).json()).toEqual({
      data: [],
      next_cursor: null,
      has_more: false,
    });
    // A's test and live keys are one account: both see the job.
    expect(
      (await call(s, { url: '/v2/batch', key: a.liveKey.secret }))
        .json()
        .data.map((j: { id: string }) => j.id),
    ).toEqual([job.id]);
    expect(receiver.deliveries).toHaveLength(1);
  });

  it('cancels a job', async () => {
    const s = await setup();
    const { liveKey } = await s.account('pro');
    await runner?.close({ timeoutMs: 100 });
    const job = (
      await call(s, {
        method: 'POST',
        url: '/v2/batch',
        key: liveKey.secret,
        body: { type: 'geo_ip', records: IPS },
      })
    ).json();
    const cancelled = await call(s, {
      method: 'POST',
      url: `/v2/batch/${job.id}/cancel`,
      key: liveKey.secret,
    });
    expect(cancelled.status).toBe(200);
    expect(cancelled.json()).toMatchObject({ id: job.id, status: 'cancelled' });
  });

  it('honours Idempotency-Key per account, bills a retry once, refuses a different request with the key', async () => {
    const s = await setup();
    const a = await s.account('pro', 'a');
    const b = await s.account('pro', 'b');
    const submit = (key: string, records = IPS) =>
      call(s, {
        method: 'POST',
        url: '/v2/batch',
        key,
        body: { type: 'geo_ip', records },
        headers: { 'idempotency-key': 'order-7' },
      });
    const first = await submit(a.liveKey.secret);
    const again = await submit(a.liveKey.secret);
    expect(again.status).toBe(202);
    expect(again.json().id).toBe(first.json().id);
    const other = await submit(b.liveKey.secret);
    expect(other.json().id).not.toBe(first.json().id);
    expect(await s.store.usage(a.account.id, '2026-11')).toEqual([
      { endpoint: 'batch_create', calls: 1, units: 5 },
    ]);
    const changed = await submit(a.liveKey.secret, ['8.8.8.8']);
    expect(changed.status).toBe(400);
    expect(changed.json().error.message).toContain('already used for a different request');
  });

  it('accepts uploaded lists: text/plain one per line, text/csv by named column or first column', async () => {
    const s = await setup();
    const { testKey } = await s.account('pro');
    const upload = (url: string, type: string, payload: string) =>
      call(s, { method: 'POST', url, key: testKey.secret, body: payload, headers: { 'content-type': type } });
    const plain = await upload(
      '/v2/batch?type=geo_ip',
      'text/plain',
      '# my list\n81.2.69.142\r\n\n2.125.160.216\n',
    );
    expect(plain.status).toBe(202);
    expect(plain.json()).toMatchObject({ type: 'geo_ip', total: 2 });
    const csv = await upload(
      '/v2/batch?type=geo_ip&column=IP',
      'text/csv; charset=utf-8',
      'name,ip\n"Smith, J",81.2.69.142\nDoe,2.125.160.216\nRoe,89.160.20.112\n',
    );
    expect(csv.status).toBe(202);
    expect(csv.json().total).toBe(3);
    await waitFor(s, csv.json().id, testKey.secret);
    const inputs = (await call(s, { url: `/v2/batch/${csv.json().id}/results`, key: testKey.secret }))
      .json()
      .data.map((result: { input: string }) => result.input);
    expect(inputs).toEqual(['81.2.69.142', '2.125.160.216', '89.160.20.112']);
    const firstColumn = await upload('/v2/batch?type=geo_ip', 'text/csv', 'ip,note\n81.2.69.142,x\n');
    expect(firstColumn.json().total).toBe(1);

    for (const [url, type, payload, message] of [
      ['/v2/batch', 'text/plain', '81.2.69.142\n', '?type='],
      [
        '/v2/batch?type=geo_ip&column=email',
        'text/csv',
        'ip\n81.2.69.142\n',
        'column "email" is not in the CSV header ("ip")',
      ],
      ['/v2/batch?type=geo_ip&column=ip', 'text/plain', '81.2.69.142\n', '?column= applies to text/csv'],
      ['/v2/batch?type=geo_ip', 'text/plain', '\n# nothing\n', 'no records'],
      ['/v2/batch?type=nope', 'text/plain', '1.1.1.1', 'type'],
      [
        '/v2/batch?type=geo_ip',
        'application/xml',
        '<ip>1.1.1.1</ip>',
        'send application/json, text/csv or text/plain',
      ],
    ] as const) {
      const response = await upload(url, type, payload);
      expect(response.status, url).toBe(400);
      expect(response.json().error).toMatchObject({ code: 'invalid_request' });
      expect(response.json().error.message).toContain(message);
    }
  });

  it('refuses a webhook_url at a private address unless allow-listed', async () => {
    const s = await setup({ allowLoopback: false });
    const { liveKey } = await s.account('pro');
    for (const url of [
      'http://127.0.0.1:9/hook',
      'http://10.1.2.3/hook',
      'http://[::1]/hook',
      'http://localhost:9/hook',
    ]) {
      const response = await call(s, {
        method: 'POST',
        url: '/v2/batch',
        key: liveKey.secret,
        body: { type: 'geo_ip', records: IPS, webhook_url: url },
      });
      expect(response.status, url).toBe(400);
      expect(response.json().error.message).toMatch(/private or reserved address.*allowPrivateTargets/);
    }
    expect((await call(s, { url: '/v2/batch', key: liveKey.secret })).json().data).toEqual([]);
    expect(
      await refusedWebhookTarget(
        'https://hooks.example.com/x',
        () => false,
        async () => [{ address: '93.184.216.34', family: 4 }],
      ),
    ).toMatch(/resolves to 93\.184\.216\.34/);
    expect(
      await refusedWebhookTarget(
        'https://hooks.example.com/x',
        () => true,
        async () => [],
      ),
    ).toBeNull();
  });

  it('checks the allowance up front: a job larger than what is left is refused with 402 and not created', async () => {
    const s = await setup();
    const { liveKey, testKey, account } = await s.account('free');
    const records = Array.from({ length: 1001 }, () => '81.2.69.142');
    const refused = await call(s, {
      method: 'POST',
      url: '/v2/batch',
      key: liveKey.secret,
      body: { type: 'geo_ip', records },
    });
    expect(refused.status).toBe(402);
    expect(refused.json().error.code).toBe('quota_exceeded');
    expect((await call(s, { url: '/v2/batch', key: liveKey.secret })).json().data).toEqual([]);
    // Test keys are never billed nor limited by the allowance.
    const sandbox = await call(s, {
      method: 'POST',
      url: '/v2/batch',
      key: testKey.secret,
      body: { type: 'geo_ip', records },
    });
    expect(sandbox.status).toBe(202);
    expect(await s.store.usage(account.id, '2026-11')).toEqual([]);
  });

  it('refuses tampered, expired and foreign cursors with 400 invalid_request', async () => {
    const s = await setup();
    const a = await s.account('pro', 'a');
    const b = await s.account('pro', 'b');
    for (let index = 0; index < 3; index++) {
      await call(s, {
        method: 'POST',
        url: '/v2/batch',
        key: a.liveKey.secret,
        body: { type: 'geo_ip', records: IPS },
      });
    }
    const page = (await call(s, { url: '/v2/batch?limit=1', key: a.liveKey.secret })).json();
    expect(page.has_more).toBe(true);
    const cursor: string = page.next_cursor;
    expect(cursor).not.toMatch(/batch_/);
    const next = await call(s, {
      url: `/v2/batch?limit=5&cursor=${encodeURIComponent(cursor)}`,
      key: a.liveKey.secret,
    });
    expect(next.json().data).toHaveLength(2);
    const tampered = `${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'BB' : 'AA'}`;
    for (const [key, value] of [
      [a.liveKey.secret, tampered],
      [b.liveKey.secret, cursor],
      [a.liveKey.secret, 'batch_00000000'],
    ] as const) {
      const response = await call(s, { url: `/v2/batch?cursor=${encodeURIComponent(value)}`, key });
      expect(response.status).toBe(400);
      expect(response.json().error.code).toBe('invalid_request');
    }
    s.clock.now += 24 * 3600 * 1000;
    const expired = await call(s, {
      url: `/v2/batch?cursor=${encodeURIComponent(cursor)}`,
      key: a.liveKey.secret,
    });
    expect(expired.status).toBe(400);
    expect(expired.json().error.message).toContain('expired');
  });

  it('sends a signed test event to a URL, and refuses a private one', async () => {
    receiver = await startWebhookReceiver();
    const s = await setup();
    const { testKey, webhookSecret, account } = await s.account('pro');
    // The signature's timestamp is the server's clock; receivers compare it with theirs.
    s.clock.now = Date.now();
    const sent = await call(s, {
      method: 'POST',
      url: '/v2/webhooks/test',
      key: testKey.secret,
      body: { url: `${receiver.url}/t` },
    });
    expect(sent.status).toBe(200);
    expect(sent.json()).toMatchObject({
      url: `${receiver.url}/t`,
      delivered: true,
      status: 200,
      error: null,
    });
    const delivery = receiver.deliveries[0];
    const body = delivery?.body.toString() ?? '';
    expect(new Webhook(webhookSecret.secret).verify(body, headersOf(delivery))).toMatchObject({
      id: sent.json().event_id,
      type: 'webhook.test',
      data: { object: { object: 'webhook_test', account_id: account.id } },
    });
    expect(
      verifyPayload(body, headersOf(delivery)['x-service-signature'] ?? '', webhookSecret.secret),
    ).toBeTruthy();

    await server?.app.close();
    const guarded = await setup({ allowLoopback: false });
    const { liveKey } = await guarded.account('pro');
    const refused = await call(guarded, {
      method: 'POST',
      url: '/v2/webhooks/test',
      key: liveKey.secret,
      body: { url: `${receiver.url}/t` },
    });
    expect(refused.status).toBe(400);
    expect(refused.json().error.message).toMatch(
      /^"url" points to 127\.0\.0\.1, a private or reserved address/,
    );
    expect(receiver.deliveries).toHaveLength(1);
  });

  it('documents the uploads, the streamed formats, Idempotency-Key, Location and 404 in the OpenAPI document', async () => {
    const s = await setup();
    const doc = (await s.app.inject({ method: 'GET', url: '/v2/openapi.json' })).json();
    const create = doc.paths['/v2/batch'].post;
    expect(Object.keys(create.requestBody.content).sort()).toEqual([
      'application/json',
      'text/csv',
      'text/plain',
    ]);
    expect(create.parameters.map((p: { in: string; name: string }) => `${p.in}:${p.name}`)).toEqual(
      expect.arrayContaining(['query:type', 'query:column', 'header:idempotency-key']),
    );
    expect(create.responses['202'].headers.Location).toBeDefined();
    expect(Object.keys(doc.paths['/v2/batch/{id}/results'].get.responses['200'].content).sort()).toEqual([
      'application/json',
      'application/x-ndjson',
      'text/csv',
    ]);
    for (const [path, method] of [
      ['/v2/batch/{id}', 'get'],
      ['/v2/batch/{id}/results', 'get'],
      ['/v2/batch/{id}/cancel', 'post'],
      ['/v2/batch/{id}/events', 'get'],
      ['/v2/events/{id}/resend', 'post'],
    ] as const) {
      expect(doc.paths[path][method].responses['404'], `${method} ${path}`).toBeDefined();
    }
    expect(doc.paths['/v2/webhooks/test'].post.operationId).toBe('sendTestWebhook');
  });

  it('runs test-key jobs in the sandbox (magic answers, no live verifier) and live-key jobs live', async () => {
    const s = await setup();
    const { testKey, liveKey } = await s.account('pro');
    liveAsked.length = 0;
    const records = ['deliverable@example.com', 'undeliverable@example.org', 'catch_all@example.net'];
    const sandbox = (
      await call(s, {
        method: 'POST',
        url: '/v2/batch',
        key: testKey.secret,
        body: { type: 'verify_email', records },
      })
    ).json();
    await waitFor(s, sandbox.id, testKey.secret);
    expect((await call(s, { url: `/v2/batch/${sandbox.id}`, key: testKey.secret })).json().counts).toEqual({
      deliverable: 1,
      undeliverable: 1,
      risky: 1, // a catch-all domain's address is risky
    });
    expect(liveAsked).toEqual([]);
    const live = (
      await call(s, {
        method: 'POST',
        url: '/v2/batch',
        key: liveKey.secret,
        body: { type: 'verify_email', records },
      })
    ).json();
    await waitFor(s, live.id, liveKey.secret);
    expect(liveAsked).toEqual(records);
  });
});
