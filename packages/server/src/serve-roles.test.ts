import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createScratchDatabase,
  POSTGRES,
  REDIS,
  scratchName,
  serviceUrl,
  startDnsServer,
} from '@svc/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, type ServeOptions, serve } from './serve.js';
import { fetchJson } from './testing/fetch-json.js';
import { printedLiveKey, type ServedForTest, serveForTest } from './testing/serve-for-test.js';

// svc serve --role api|worker|all on PostgreSQL and Redis (docs/deployment.md). Each test file
// gets a database of its own (serve picks its schemas itself) and a Redis prefix of its own.

const WHAT = 'svc serve roles on PostgreSQL + Redis';
const postgresUrl = await serviceUrl(POSTGRES, WHAT);
const redisUrl = await serviceUrl(REDIS, WHAT);

let dir: string;
let databaseUrl = '';
let databaseName = '';
let dropDatabase: (() => Promise<void>) | undefined;
const redisPrefix = scratchName('svc_t_roles');
const secretKey = randomBytes(32).toString('hex');
const running: RunningServer[] = [];

/** Chunks of the job a worker holds now (leased, lease not yet run out), read from the batch store's tables. */
async function heldChunks(jobId: string): Promise<number> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ held: number }>(
      "SELECT count(*)::int AS held FROM svc_batch.chunks WHERE job_id = $1 AND state = 'leased' AND lease_until > $2",
      [jobId, Date.now()],
    );
    return rows[0]?.held ?? 0;
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-roles-'));
  if (!postgresUrl) return;
  databaseName = scratchName('svc_t_roles');
  ({ url: databaseUrl, drop: dropDatabase } = await createScratchDatabase(postgresUrl, databaseName));
});
/** Closed after each test, after the servers. */
const closeAfter: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) await server.close();
  for (const close of closeAfter.splice(0)) await close();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await dropDatabase?.();
  if (redisUrl) {
    const { Redis } = await import('ioredis');
    const redis = new Redis(redisUrl);
    const keys = await redis.keys(`${redisPrefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  }
});

/** serve() as one process of a deployment: its own data dir, the shared database, Redis and key. */
async function start(
  name: string,
  options: Record<string, unknown>,
  env: Record<string, string> = {},
  database = databaseUrl,
  extra: Pick<ServeOptions, 'batchFallbackPollMs'> = {},
) {
  const started = await serveForTest(
    dir,
    {
      dataDir: join(dir, name),
      databaseUrl: database,
      ...(redisUrl ? { redisUrl, redisPrefix } : {}),
      ...options,
    },
    { env: { SVC_SECRET_KEY: secretKey, ...env }, batchStopTimeoutMs: 500, ...extra },
  );
  running.push(started.server);
  return started;
}

/** The live key of a new self-hosted account made in the control plane of a process serving the API. */
async function newAccountKey(served: ServedForTest, name: string): Promise<{ secret: string }> {
  const { createAccount } = await import('./control-plane/accounts.js');
  const app = served.server.app;
  if (!app) throw new Error(`${name}: the process serves no API (role worker)`);
  const { liveKey } = await createAccount(
    { controlPlane: app.svc.controlPlane, secrets: app.svc.secrets, now: Date.now },
    { name, planId: 'self_hosted' },
  );
  return liveKey;
}

const call = fetchJson<Record<string, unknown>>;

const records = ['81.2.69.142', '2.125.160.216', '10.0.0.1', '175.16.199.1', '89.160.20.112'];

describe('roles without PostgreSQL', () => {
  it('worker and api refuse SQLite, naming databaseUrl', async () => {
    for (const role of ['worker', 'api']) {
      await expect(
        serve({
          options: { role: role as 'worker', port: 0, dataDir: join(dir, `sqlite-${role}`) },
          env: {},
          handleSignals: false,
        }),
      ).rejects.toThrow(`role ${role} needs databaseUrl`);
    }
  });
});

describe.skipIf(!postgresUrl || !redisUrl)('first start of several processes at once', () => {
  it('two api processes starting together on an empty database make one owner account', async () => {
    const name = `${databaseName}_first`;
    const { url, drop } = await createScratchDatabase(postgresUrl as string, name);
    try {
      const both = await Promise.all([
        start('first-a', { role: 'api' }, {}, url),
        start('first-b', { role: 'api' }, {}, url),
      ]);
      const owners = both.filter(({ server }) => server.createdOwner !== null);
      expect(owners).toHaveLength(1);
      expect(both.filter(({ out }) => out().includes('first start'))).toHaveLength(1);
      // The keys one printed work on the other: one account, one database.
      const live = printedLiveKey((owners[0] as (typeof both)[0]).err()) as string;
      for (const { server } of both) {
        expect((await call(server.url, 'GET', '/v2/usage', live)).status).toBe(200);
      }
    } finally {
      for (const server of running.splice(0)) await server.close();
      await drop();
    }
  });
});

describe.skipIf(!postgresUrl || !redisUrl)('roles on PostgreSQL + Redis', () => {
  it('an api process submits but never runs a job; a worker process runs it; both see one state', async () => {
    const api = await start('api', { role: 'api' });
    const live = printedLiveKey(api.err()) as string;
    expect(live).toMatch(/^sk_live_/);
    expect(api.out()).toContain(`svc serve: listening on ${api.server.url} (role api; state in postgres://`);

    const submitted = await call(api.server.url, 'POST', '/v2/batch', live, { type: 'geo_ip', records });
    expect(submitted.status).toBe(202);
    const id = submitted.body.id as string;
    // No worker yet: the api process leaves the job alone. Real time, on purpose: this is a claim
    // that nothing happens in another process's real BullMQ and PostgreSQL, which no clock of the
    // test can move; 1.5 s is many times what a consumer takes to claim a chunk here.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect((await call(api.server.url, 'GET', `/v2/batch/${id}`, live)).body.status).toBe('queued');

    // The worker verifies verify_email records: its health checks its resolver (a canary it can resolve here).
    const dns = await startDnsServer({ zones: { 'canary.test': { A: ['192.0.2.1'] } } });
    closeAfter.push(() => dns.close());
    // Its store poll is a minute away: work it does within the test came through the queue.
    const worker = await start(
      'worker',
      { role: 'worker', dns: dns.address, dnsCanaries: ['canary.test'] },
      {},
      databaseUrl,
      { batchFallbackPollMs: 60_000 },
    );
    expect(worker.server.app).toBeNull();
    expect(worker.out()).toMatch(
      /^svc serve: worker running batch jobs and webhook delivery; health on http:\/\/127\.0\.0\.1:\d+\/v2\/health \(state in postgres:\/\/.*\+ redis:\/\//m,
    );
    // The worker prints no keys: it never creates the owner account.
    expect(worker.out()).not.toContain('first start');
    await expect
      .poll(async () => (await call(api.server.url, 'GET', `/v2/batch/${id}`, live)).body.status, {
        timeout: 15_000,
      })
      .toBe('completed');
    const job = (await call(api.server.url, 'GET', `/v2/batch/${id}`, live)).body;
    expect(job).toMatchObject({ total: 5, processed: 5 });
    const results = await call(api.server.url, 'GET', `/v2/batch/${id}/results`, live);
    expect((results.body.data as { index: number }[]).map((result) => result.index)).toEqual([0, 1, 2, 3, 4]);

    // A second job reaches the idle worker through the queue (its store poll is a minute away).
    const second = await call(api.server.url, 'POST', '/v2/batch', live, { type: 'geo_ip', records });
    await expect
      .poll(
        async () =>
          (await call(api.server.url, 'GET', `/v2/batch/${second.body.id as string}`, live)).body.status,
        { timeout: 10_000, interval: 50 },
      )
      .toBe('completed');

    // The worker's port answers health only.
    await expect
      .poll(async () => (await call(worker.server.url, 'GET', '/v2/health', null)).body.checks, {
        timeout: 10_000,
      })
      .toEqual([
        expect.objectContaining({ id: 'control_plane', status: 'ok' }),
        expect.objectContaining({ id: 'dns_resolver', status: 'ok' }),
      ]);
    const health = await call(worker.server.url, 'GET', '/v2/health', null);
    expect(health).toMatchObject({ status: 200, body: { status: 'ok', failing: [], role: 'worker' } });
    const elsewhere = await call(worker.server.url, 'GET', '/v2/geo/8.8.8.8', live);
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body).toMatchObject({ error: { code: 'not_found' } });
    expect((elsewhere.body.error as { message: string }).message).toContain('worker process');
  });

  it('a worker whose resolver denies every name: health 200 degraded, failing dns_resolver', async () => {
    const dns = await startDnsServer({ zones: { '*': 'NXDOMAIN' } });
    closeAfter.push(() => dns.close());
    const worker = await start('worker-dns', {
      role: 'worker',
      dns: dns.address,
      dnsCanaries: ['canary.test'],
    });
    let body: Record<string, unknown> = {};
    await expect
      .poll(
        async () => {
          const health = await call(worker.server.url, 'GET', '/v2/health', null);
          expect(health.status).toBe(200);
          body = health.body;
          return body.status;
        },
        { timeout: 10_000, interval: 100 },
      )
      .toBe('degraded');
    expect(body).toMatchObject({ failing: ['dns_resolver'], role: 'worker' });
    const check = (body.checks as { id: string; status: string; message: string }[]).find(
      (entry) => entry.id === 'dns_resolver',
    );
    expect(check?.status).toBe('failed');
    expect(check?.message).toContain('The DNS resolver denies names that exist (NXDOMAIN for canary.test)');
    // No key on a worker's port: the resolver's address stays out of the message.
    expect(check?.message).not.toContain(dns.address);
  });

  it('a worker stopped mid-job hands its chunks back: none is held after the stop, and another worker finishes the job', async () => {
    const api = await start('api-stop', { role: 'api' });
    const liveKey = await newAccountKey(api, 'roles-stop');
    const many = Array.from({ length: 50_000 }, (_, index) => records[index % records.length] as string);
    const submitted = await call(api.server.url, 'POST', '/v2/batch', liveKey.secret, {
      type: 'geo_ip',
      records: many,
    });
    expect(submitted.status).toBe(202);
    const id = submitted.body.id as string;
    const status = async () => (await call(api.server.url, 'GET', `/v2/batch/${id}`, liveKey.secret)).body;
    const first = await start('worker-stop-1', { role: 'worker' });
    await expect
      .poll(async () => (await status()).processed, { timeout: 15_000, interval: 20 })
      .toBeGreaterThan(0);
    await first.server.close();
    const left = await status();
    expect(left.status).toBe('running');
    expect(left.processed as number).toBeLessThan(50_000);
    // Handed back: once the stop returns, no chunk is held, so the next worker claims them at
    // once instead of after the lease (read from the store, not timed).
    expect(await heldChunks(id)).toBe(0);

    await start('worker-stop-2', { role: 'worker' });
    await expect
      .poll(async () => (await status()).status, { timeout: 25_000, interval: 100 })
      .toBe('completed');
    expect(await status()).toMatchObject({ processed: 50_000 });
    // Its waits (15 s for the first records, 25 s for the rest) exceed the default test timeout.
  }, 60_000);

  it('a process with another server secret key refuses to start on a database with accounts', async () => {
    // The first test's api process created the owner account in this database.
    const other = randomBytes(32).toString('hex');
    await expect(start('stranger', { role: 'api' }, { SVC_SECRET_KEY: other })).rejects.toThrow(
      'is not the one the database',
    );
  });

  it('role all on PostgreSQL runs jobs itself, as on SQLite', async () => {
    const all = await start('all', { role: 'all' });
    // The database already has its owner from the first test: no keys printed, so make one.
    expect(all.out()).not.toContain('first start');
    const liveKey = await newAccountKey(all, 'roles-all');
    const submitted = await call(all.server.url, 'POST', '/v2/batch', liveKey.secret, {
      type: 'geo_ip',
      records,
    });
    expect(submitted.status).toBe(202);
    await expect
      .poll(
        async () =>
          (await call(all.server.url, 'GET', `/v2/batch/${submitted.body.id as string}`, liveKey.secret)).body
            .status,
        { timeout: 15_000 },
      )
      .toBe('completed');
  });
});
