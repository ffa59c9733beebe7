import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startWebhookReceiver, type WebhookReceiver } from '@svc/testkit';
import { verifyPayload } from '@svc/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, GEO_CITY_FIXTURE, type ServeChild, startServe } from './support/serve-child.js';

// A batch job over HTTP from submit to the signed webhook to its results, against `svc serve`
// running as a child process; a second account made with `svc accounts create` on the same data.

const run = promisify(execFile);
const E2E_DIR = fileURLToPath(new URL('.', import.meta.url));
const CLI = fileURLToPath(new URL('../packages/cli/src/bin.ts', import.meta.url));

interface Job {
  id: string;
  status: string;
  total: number;
  processed: number;
  counts: Record<string, number>;
}

let receiver: WebhookReceiver;
let server: ServeChild;
let api: ApiClient;
let webhookJobId = '';

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  server = await startServe({
    env: { SVC_GEO_DATABASES: GEO_CITY_FIXTURE, SVC_WEBHOOKS_ALLOW_PRIVATE_TARGETS: '127.0.0.0/8' },
  });
  api = await ApiClient.connect(server.url);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

async function waitForStatus(id: string, key: string, done: (job: Job) => boolean): Promise<Job> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const job = await api.request<Job>('GET', `/v2/batch/${id}`, { key });
    if (done(job.body) || Date.now() > deadline) return job.body;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('a geo_ip batch job', () => {
  it('202 with Location, idempotent, then a signed batch.completed webhook, then CSV and JSON results', async () => {
    const records = ['81.2.69.142', '10.0.0.1', '2.125.160.216'];
    const submit = () =>
      api.request<Job>('POST', '/v2/batch', {
        key: server.liveKey,
        json: { type: 'geo_ip', records, webhook_url: `${receiver.url}/hooks` },
        headers: { 'idempotency-key': 'e2e-job-1' },
      });
    const accepted = await submit();
    expect(accepted.status).toBe(202);
    expect(accepted.body.id).toMatch(/^batch_/);
    expect(accepted.headers.get('location')).toBe(`/v2/batch/${accepted.body.id}`);
    webhookJobId = accepted.body.id;
    const retried = await submit();
    expect(retried.body.id).toBe(accepted.body.id);

    const [delivery] = await receiver.waitFor(1, 15_000);
    const body = delivery?.body.toString('utf8') ?? '';
    // Verified with the receivers' own library against the secret printed at first start.
    const event = verifyPayload<Job>(
      body,
      delivery?.headers['x-service-signature'] as string,
      server.webhookSecret,
    );
    expect(event.type).toBe('batch.completed');
    expect(event.data.object).toMatchObject({ id: accepted.body.id, status: 'completed', total: 3 });
    expect(delivery?.headers['webhook-id']).toBe(event.id);
    expect(delivery?.headers['webhook-signature']).toMatch(/^v1,/);

    const job = await api.request<Job>('GET', `/v2/batch/${accepted.body.id}`, { key: server.liveKey });
    expect(job.body).toMatchObject({ status: 'completed', processed: 3 });

    const csv = await api.request('GET', `/v2/batch/${accepted.body.id}/results?format=csv`, {
      key: server.liveKey,
    });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = csv.text.trim().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[1]).toContain('81.2.69.142');
    expect(lines[1]).toContain('GB');

    const page = await api.request<{
      data: { index: number; input: string; ok: boolean }[];
      has_more: boolean;
    }>('GET', `/v2/batch/${accepted.body.id}/results?limit=2`, { key: server.liveKey });
    expect(page.body.data.map((result) => result.input)).toEqual(records.slice(0, 2));
    expect(page.body.data.map((result) => result.ok)).toEqual([true, false]);
    expect(page.body.has_more).toBe(true);

    const events = await api.request<{ data: { id: string; attempts: unknown[] }[] }>(
      'GET',
      `/v2/batch/${accepted.body.id}/events`,
      { key: server.liveKey },
    );
    expect(events.body.data.map((entry) => entry.id)).toContain(event.id);
  });

  it('an uploaded text/plain list is a job too, billed by record on the live key', async () => {
    const month = new Date().toISOString().slice(0, 7);
    const usage = async () =>
      (
        await api.request<{ lines: { endpoint: string; units: number }[] }>(
          'GET',
          `/v2/usage?month=${month}`,
          {
            key: server.liveKey,
          },
        )
      ).body.lines.find((line) => line.endpoint === 'batch_create')?.units ?? 0;
    const before = await usage();
    const upload = await api.request<Job>('POST', '/v2/batch?type=geo_ip', {
      key: server.liveKey,
      body: '# a comment\n81.2.69.142\n\n2.125.160.216\n',
      headers: { 'content-type': 'text/plain' },
    });
    expect(upload.status).toBe(202);
    expect(upload.body.total).toBe(2);
    expect(await usage()).toBe(before + 2);
    const done = await waitForStatus(upload.body.id, server.liveKey, (job) => job.status === 'completed');
    expect(done.processed).toBe(2);
  });

  it('a private webhook_url outside the allow-list is refused at submit with 400', async () => {
    const refused = await api.request<{ error: { code: string; message: string } }>('POST', '/v2/batch', {
      key: server.liveKey,
      json: { type: 'geo_ip', records: ['81.2.69.142'], webhook_url: 'http://10.1.2.3/hook' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('invalid_request');
    expect(refused.body.error.message).toContain('10.1.2.3');
  });

  it('another account (made with svc accounts create) sees none of these jobs: 404', async () => {
    const { stdout } = await run(
      process.execPath,
      ['--conditions=source', '--import', 'tsx', CLI, 'accounts', 'create', '--name', 'other', '--json'],
      { cwd: E2E_DIR, env: { PATH: process.env.PATH ?? '', SVC_DATA_DIR: server.dataDir } },
    );
    const other = JSON.parse(stdout) as { keys: { environment: string; secret: string }[] };
    const otherKey = other.keys.find((key) => key.environment === 'live')?.secret ?? '';
    const mine = await api.request<{ data: Job[] }>('GET', '/v2/batch', { key: server.liveKey });
    const id = mine.body.data[0]?.id ?? '';
    expect(id).toMatch(/^batch_/);
    for (const path of [`/v2/batch/${id}`, `/v2/batch/${id}/results`]) {
      const response = await api.request<{ error: { code: string } }>('GET', path, { key: otherKey });
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('not_found');
    }
    const cancel = await api.request('POST', `/v2/batch/${id}/cancel`, { key: otherKey });
    expect(cancel.status).toBe(404);
    const list = await api.request<{ data: Job[] }>('GET', '/v2/batch', { key: otherKey });
    expect(list.body.data).toEqual([]);
  });

  it('an event resent: the same event id delivered once more, with one more attempt listed', async () => {
    // The first test's job, which had a webhook.
    const events = await api.request<{ data: { id: string; attempts: unknown[] }[] }>(
      'GET',
      `/v2/batch/${webhookJobId}/events`,
      { key: server.liveKey },
    );
    const event = events.body.data[0];
    expect(event?.id).toMatch(/^evt_/);
    const already = receiver.deliveries.length;
    const resent = await api.request<{ id: string; attempts: unknown[] }>(
      'POST',
      `/v2/events/${event?.id}/resend`,
      {
        key: server.liveKey,
      },
    );
    expect(resent.status).toBe(200);
    expect(resent.body.id).toBe(event?.id);
    expect(resent.body.attempts.length).toBe((event?.attempts.length ?? 0) + 1);
    const delivery = (await receiver.waitFor(already + 1, 10_000))[already];
    expect(delivery?.headers['webhook-id']).toBe(event?.id);
  });

  it('POST /v2/webhooks/test sends a signed test event and reports the answer', async () => {
    const already = receiver.deliveries.length;
    const tested = await api.request<{ event_id: string; delivered: boolean; status: number | null }>(
      'POST',
      '/v2/webhooks/test',
      { key: server.liveKey, json: { url: `${receiver.url}/test` } },
    );
    expect(tested.status).toBe(200);
    expect(tested.body).toMatchObject({ delivered: true, status: 200 });
    const delivery = (await receiver.waitFor(already + 1, 10_000))[already];
    const event = verifyPayload(
      delivery?.body ?? '',
      delivery?.headers['x-service-signature'] as string,
      server.webhookSecret,
    );
    expect(event).toMatchObject({ id: tested.body.event_id, type: 'webhook.test' });
  });

  it('a tampered cursor → 400 invalid_request', async () => {
    const first = await api.request<{ next_cursor: string | null }>('GET', '/v2/batch?limit=1', {
      key: server.liveKey,
    });
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const cursor = first.body.next_cursor as string;
    const tampered = `${cursor.slice(0, -2)}${cursor.endsWith('A') ? 'BB' : 'AA'}`;
    const refused = await api.request<{ error: { code: string } }>(
      'GET',
      `/v2/batch?limit=1&cursor=${encodeURIComponent(tampered)}`,
      { key: server.liveKey },
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('invalid_request');
  });

  it('after a webhook secret rotation, deliveries carry a signature by each secret (old and new)', async () => {
    const rotated = await api.request<{ secret: string }>('POST', '/v2/account/webhook-secret/rotate', {
      key: server.liveKey,
      json: { grace_seconds: 3600 },
    });
    expect(rotated.status).toBe(201);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    const already = receiver.deliveries.length;
    const job = await api.request<Job>('POST', '/v2/batch', {
      key: server.liveKey,
      json: { type: 'geo_ip', records: ['81.2.69.142'], webhook_url: `${receiver.url}/rotated` },
    });
    expect(job.status).toBe(202);
    const deliveries = await receiver.waitFor(already + 1, 15_000);
    const delivery = deliveries[already];
    const header = delivery?.headers['x-service-signature'] as string;
    expect(header.match(/v1=/g)).toHaveLength(2);
    for (const secret of [server.webhookSecret, rotated.body.secret]) {
      const event = verifyPayload<Job>(delivery?.body ?? '', header, secret);
      expect(event.data.object.id).toBe(job.body.id);
    }
  });

  it('an account disabled with svc accounts disable is refused by the running server within its credential cache time', async () => {
    const cli = (...args: string[]) =>
      run(process.execPath, ['--conditions=source', '--import', 'tsx', CLI, ...args, '--json'], {
        cwd: E2E_DIR,
        env: { PATH: process.env.PATH ?? '', SVC_DATA_DIR: server.dataDir },
      });
    const created = JSON.parse((await cli('accounts', 'create', '--name', 'short-lived')).stdout) as {
      account: { id: string };
      keys: { environment: string; secret: string }[];
    };
    const key = created.keys.find((entry) => entry.environment === 'live')?.secret ?? '';
    expect((await api.request('GET', '/v2/account', { key })).status).toBe(200);
    await cli('accounts', 'disable', created.account.id);
    // The server caches credentials for 2 s (@svc/server's CREDENTIAL_CACHE_MS): a change made by
    // another process applies within that time. Asked every 300 ms, so the account (Free plan:
    // burst 10, 1 a second) stays within its rate limit while it waits: at most 12 calls in 3.5 s.
    const disabledAt = Date.now();
    let refused = await api.request<{ error: { code: string } }>('GET', '/v2/account', { key });
    while (refused.status === 200 && Date.now() - disabledAt < 3_500) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      refused = await api.request<{ error: { code: string } }>('GET', '/v2/account', { key });
    }
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('invalid_api_key');
  });

  it('cancel of a finished job returns it as it is', async () => {
    const mine = await api.request<{ data: Job[] }>('GET', '/v2/batch', { key: server.liveKey });
    const finished = mine.body.data.find((job) => job.status === 'completed');
    expect(finished).toBeDefined();
    const cancelled = await api.request<Job>('POST', `/v2/batch/${finished?.id}/cancel`, {
      key: server.liveKey,
    });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ id: finished?.id, status: 'completed' });
  });
});
