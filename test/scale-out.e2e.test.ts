import { randomBytes, randomInt } from 'node:crypto';
import {
  createScratchDatabase,
  POSTGRES,
  REDIS,
  scratchName,
  seededRandom,
  serviceUrl,
  startWebhookReceiver,
} from '@svc/testkit';
import { verifyPayload } from '@svc/webhooks';
import { describe, expect, it } from 'vitest';
import { deleteRedisKeys } from './support/scratch-backends.js';
import { ApiClient, GEO_CITY_FIXTURE } from './support/serve-child.js';
import { SvcCluster } from './support/svc-cluster.js';

// DESIGN §10, issue 13's proof: two API processes and three workers on one PostgreSQL and one
// Redis. A 50,000-record job submitted to one API and polled through the other survives
// workers killed with SIGKILL and an API process killed once: every record has exactly one
// result, the counters match the results, and the completion webhook carries one event id. In
// the same run a Free account hammering both APIs gets no more than its one shared bucket allows.

const WHAT = 'the scale-out test (2 API + 3 worker processes)';
const databaseUrl = await serviceUrl(POSTGRES, WHAT);
const redisUrl = await serviceUrl(REDIS, WHAT);

const RECORDS = 50_000;
const WORKERS = ['worker-1', 'worker-2', 'worker-3'] as const;
/** How long the Free account hammers the two APIs. */
const HAMMER_MS = 4_000;
/** Requests the Free account keeps in flight against each API. */
const HAMMER_CONCURRENCY = 4;

interface Job {
  id: string;
  status: string;
  total: number;
  processed: number;
  failed: number;
  counts: Record<string, number>;
  started_at: string | null;
  completed_at: string | null;
}

interface ResultLine {
  index: number;
  input: string;
  ok: boolean;
  result?: { country: unknown; latitude: unknown; longitude: unknown };
  error?: { code: string };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `work` beside the test's main line: its failure surfaces where it is awaited, and is not
 * an unhandled rejection meanwhile (or when the test already failed elsewhere).
 */
function inBackground<T>(work: () => Promise<T>): Promise<T> {
  const running = work();
  running.catch(() => {});
  return running;
}

/** Addresses the City test database locates, and private ones every lookup refuses. */
const LOCATED = ['81.2.69.142', '2.125.160.216', '89.160.20.112', '216.160.83.56', '175.16.199.1'];
const REFUSED = ['10.0.0.1', '192.168.1.1', '127.0.0.1'];

/** The job's records, drawn from the seed: mostly unknown public addresses, some located, some refused. */
function makeRecords(random: () => number): string[] {
  return Array.from({ length: RECORDS }, () => {
    const roll = random();
    if (roll < 0.2) return LOCATED[Math.floor(random() * LOCATED.length)] as string;
    if (roll < 0.25) return REFUSED[Math.floor(random() * REFUSED.length)] as string;
    const octet = () => Math.floor(random() * 256);
    return `${100 + Math.floor(random() * 100)}.${octet()}.${octet()}.${octet()}`;
  });
}

describe.skipIf(!databaseUrl || !redisUrl)(
  'scale-out: 2 API + 3 worker processes on one PostgreSQL and one Redis',
  () => {
    it('a 50,000-record job survives SIGKILLed workers and an API process: each record once, one webhook event; a Free account gets one shared bucket', {
      timeout: 240_000,
    }, async () => {
      const seed = Number(process.env.SVC_SCALE_SEED) || randomInt(1, 2 ** 31);
      console.log(`scale-out: seed ${seed} (reproduce the choices with SVC_SCALE_SEED=${seed})`);
      const random = seededRandom(seed);
      const database = await createScratchDatabase(databaseUrl as string, scratchName('svc_t_scale'));
      // No `:` allowed in svc's prefix; BullMQ and the limiter put theirs after it.
      const redisPrefix = scratchName('svc_t_scale');
      const receiver = await startWebhookReceiver();
      const cluster = new SvcCluster({
        env: {
          SVC_DATABASE_URL: database.url,
          SVC_REDIS_URL: redisUrl as string,
          SVC_REDIS_PREFIX: redisPrefix,
          // Every process seals and opens webhook secrets and cursors with the same key.
          SVC_SECRET_KEY: randomBytes(32).toString('hex'),
          SVC_GEO_DATABASES: GEO_CITY_FIXTURE,
          SVC_WEBHOOKS_ALLOW_PRIVATE_TARGETS: '127.0.0.0/8',
        },
      });
      try {
        await runScenario({ cluster, random, receiverUrl: receiver.url, deliveries: receiver });
      } catch (error) {
        console.error(`scale-out failed with seed ${seed}; what each process printed:\n${cluster.output()}`);
        throw error;
      } finally {
        await cluster.close();
        await receiver.close();
        // Both start, even when one fails.
        await Promise.all([database.drop(), deleteRedisKeys(redisUrl as string, [redisPrefix])]);
      }
    });
  },
);

interface Scenario {
  cluster: SvcCluster;
  random: () => number;
  receiverUrl: string;
  deliveries: { deliveries: readonly { body: Buffer; headers: Record<string, unknown> }[] };
}

async function runScenario({ cluster, random, receiverUrl, deliveries }: Scenario): Promise<void> {
  // The first API process creates the owner account and prints its secrets; then the rest.
  const first = await cluster.start('api-1', 'api');
  // The secrets are on stderr, a pipe of its own that may be read after the start line.
  await expect
    .poll(() => first.output(), { timeout: 10_000 })
    .toMatch(/webhook signing secret: +whsec_\S+\n/);
  const out = first.output();
  const liveKey = /live key: +(sk_live_\w+)/.exec(out)?.[1] ?? '';
  const webhookSecret = /webhook signing secret: +(whsec_\S+)/.exec(out)?.[1] ?? '';
  expect(liveKey, out).toMatch(/^sk_live_/);
  await Promise.all([cluster.start('api-2', 'api'), ...WORKERS.map((name) => cluster.start(name, 'worker'))]);
  const freeKey = await createFreeAccount(cluster);

  const submitApi = await ApiClient.connect(cluster.get('api-1').url as string);
  const pollApi = await ApiClient.connect(cluster.get('api-2').url as string);
  const records = makeRecords(random);
  const accepted = await submitApi.request<Job>('POST', '/v2/batch', {
    key: liveKey,
    json: { type: 'geo_ip', records, webhook_url: `${receiverUrl}/hooks` },
  });
  expect(accepted.status, accepted.text).toBe(202);
  const jobId = accepted.body.id;

  // Polled through the other API process until it reports the job finished.
  let finished: Job | undefined;
  const polling = inBackground(async () => {
    const deadline = Date.now() + 180_000;
    while (Date.now() < deadline) {
      const polled = await pollApi.request<Job>('GET', `/v2/batch/${jobId}`, { key: liveKey });
      expect(polled.status).toBe(200);
      if (['completed', 'failed', 'cancelled'].includes(polled.body.status)) {
        finished = polled.body;
        return;
      }
      await sleep(500);
    }
    throw new Error(`job ${jobId} did not finish in 180 s`);
  });

  // Workers killed at random (which, and when, from the seed), each restarted at once. The kills
  // come every 0.3–1 s, so they land while the job runs even on a fast machine (the first one
  // that hits a worker holding records also holds the job up for that lease); none comes once
  // the job is seen finished.
  const workerKills: { name: string; at: number }[] = [];
  const wantedKills = 5 + Math.floor(random() * 3);
  const chaos = inBackground(async () => {
    const restarts: Promise<unknown>[] = [];
    while (workerKills.length < wantedKills && finished === undefined) {
      await sleep(300 + random() * 700);
      if (finished !== undefined) break;
      const alive = WORKERS.filter((name) => !cluster.get(name).ended());
      const name = alive[Math.floor(random() * alive.length)];
      if (name === undefined) continue;
      await cluster.kill(name);
      workerKills.push({ name, at: Date.now() });
      restarts.push(inBackground(() => cluster.restart(name)));
    }
    await Promise.all(restarts);
  });

  // Meanwhile the Free account hammers both APIs; then the submitting API is killed once.
  const hammer = await hammerBothApis(cluster, freeKey);
  // The Free plan's one bucket (burst 10, 1 per second), across both API processes together.
  const allowed = hammer.ok.api1 + hammer.ok.api2;
  console.log(
    `scale-out: Free account: ${allowed} × 200 (api-1 ${hammer.ok.api1}, api-2 ${hammer.ok.api2}) and ${hammer.limited.api1 + hammer.limited.api2} × 429 in ${hammer.seconds.toFixed(2)} s`,
  );
  const counted = JSON.stringify(hammer);
  expect(allowed, counted).toBeGreaterThanOrEqual(10);
  expect(allowed, counted).toBeLessThanOrEqual(Math.floor(10 + 1 * hammer.seconds));
  // Both processes refused: each one's refusals come from the bucket both drew on. (Which one
  // got the burst is a race: the faster process can take all ten before the other asks.)
  expect(hammer.limited.api1, counted).toBeGreaterThan(0);
  expect(hammer.limited.api2, counted).toBeGreaterThan(0);
  await cluster.kill('api-1');
  const apiKilledAt = Date.now();
  const restartedApi = await cluster.restart('api-1');

  await chaos;
  await polling;
  const job = finished as Job;
  expect(job.status, JSON.stringify(job)).toBe('completed');
  const completedAt = Date.parse(job.completed_at ?? '');
  // The kills landed while the job ran, so they tested something.
  expect(workerKills.length).toBeGreaterThanOrEqual(5);
  for (const kill of workerKills)
    expect(kill.at, `${kill.name} killed after completion`).toBeLessThan(completedAt);
  expect(apiKilledAt).toBeLessThan(completedAt);

  // The results, downloaded from the restarted API process: every record exactly once.
  const resultsApi = await ApiClient.connect(restartedApi.url as string);
  const exported = await resultsApi.request('GET', `/v2/batch/${jobId}/results?format=ndjson`, {
    key: liveKey,
  });
  expect(exported.status).toBe(200);
  const lines = exported.text.split('\n').filter((line) => line !== '');
  expect(lines).toHaveLength(RECORDS);
  const seen = new Uint8Array(RECORDS);
  const tally = { failed: 0, located: 0, not_located: 0 };
  for (const line of lines) {
    const result = JSON.parse(line) as ResultLine;
    expect(seen[result.index], `index ${result.index} twice`).toBe(0);
    seen[result.index] = 1;
    expect(result.input).toBe(records[result.index]);
    if (!result.ok) tally.failed++;
    else if (
      result.result?.country !== null ||
      (result.result.latitude !== null && result.result.longitude !== null)
    )
      tally.located++;
    else tally.not_located++;
  }
  expect(seen.every((value) => value === 1)).toBe(true);
  // The counters equal the results.
  expect(job).toMatchObject({ total: RECORDS, processed: RECORDS, failed: tally.failed });
  expect(job.counts).toMatchObject({ located: tally.located, not_located: tally.not_located });
  expect(tally.located).toBeGreaterThan(RECORDS * 0.15);
  expect(tally.failed).toBeGreaterThan(RECORDS * 0.03);

  // The completion webhook: delivered (more than once is allowed), always with one event id.
  const deadline = Date.now() + 60_000;
  const ofJob = () =>
    deliveries.deliveries.filter((delivery) => delivery.body.toString('utf8').includes(`"${jobId}"`));
  while (ofJob().length === 0 && Date.now() < deadline) await sleep(200);
  await sleep(2_000); // a duplicate from a killed deliverer would come now
  const events = ofJob().map((delivery) =>
    verifyPayload<Job>(
      delivery.body.toString('utf8'),
      delivery.headers['x-service-signature'] as string,
      webhookSecret,
    ),
  );
  expect(events.length).toBeGreaterThanOrEqual(1);
  expect(new Set(events.map((event) => event.id)).size).toBe(1);
  expect(events[0]).toMatchObject({
    type: 'batch.completed',
    data: { object: { id: jobId, status: 'completed' } },
  });

  const ranFor = (completedAt - Date.parse(job.started_at ?? '')) / 1000;
  console.log(
    `scale-out: the job ran ${ranFor.toFixed(1)} s, its webhook came ${events.length} time(s); ${workerKills.length} worker kills (${workerKills.map((kill) => kill.name).join(', ')}), api-1 once`,
  );
}

/** `svc accounts create --plan free` on the cluster's shared store; returns its live key. */
async function createFreeAccount(cluster: SvcCluster): Promise<string> {
  const { stdout } = await cluster.cli([
    'accounts',
    'create',
    '--name',
    'free-hammer',
    '--plan',
    'free',
    '--json',
  ]);
  const created = JSON.parse(stdout) as { keys: { environment: string; secret: string }[] };
  const live = created.keys.find((key) => key.environment === 'live')?.secret;
  if (!live) throw new Error(`svc accounts create printed no live key: ${stdout}`);
  return live;
}

interface HammerOutcome {
  ok: { api1: number; api2: number };
  limited: { api1: number; api2: number };
  /** From before the first request was sent until the last answer arrived. */
  seconds: number;
}

/** Free-plan requests at both API processes at once for HAMMER_MS, counted by status. */
async function hammerBothApis(cluster: SvcCluster, key: string): Promise<HammerOutcome> {
  const targets = { api1: cluster.get('api-1').url as string, api2: cluster.get('api-2').url as string };
  const ok = { api1: 0, api2: 0 };
  const limited = { api1: 0, api2: 0 };
  const started = performance.now();
  const stopAt = Date.now() + HAMMER_MS;
  const loop = async (target: keyof typeof targets) => {
    while (Date.now() < stopAt) {
      const response = await fetch(`${targets[target]}/v2/account`, { headers: { 'x-api-key': key } });
      await response.arrayBuffer();
      if (response.status === 200) ok[target]++;
      else if (response.status === 429) {
        limited[target]++;
        expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      } else throw new Error(`GET /v2/account on ${target} answered ${response.status}`);
      expect(response.headers.get('x-ratelimit-limit')).toBe('10');
    }
  };
  await Promise.all(
    (['api1', 'api2'] as const).flatMap((target) =>
      Array.from({ length: HAMMER_CONCURRENCY }, () => loop(target)),
    ),
  );
  return { ok, limited, seconds: (performance.now() - started) / 1000 };
}
