import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type BatchRunner,
  createBatchRunner,
  createEnrichCompanyProcessor,
  createEnrichContactProcessor,
  createMemoryStore,
  createVerifyEmailProcessor,
} from '@svc/batch-runner';
import { createVerifier, DnsQueryError, type DnsResolver } from '@svc/email-verifier';
import { type CompanyQuery, createEnricher, type EnrichmentAdapter, type PersonQuery } from '@svc/enricher';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { batchMissCredits, sweepBatchMissCredits } from './batch-credits.js';
import { createSqliteControlPlaneStore } from './control-plane/stores/sqlite.js';
import { batchResultsPath } from './routes/batch.js';
import { createSandboxEnricher } from './sandbox-enricher.js';
import { oneHit, testAdapter } from './testing/test-adapter.js';
import { createTestServer, type TestServer } from './testing/test-server.js';

// A real enricher (validation, waterfall, result shape) over in-memory adapters that know two
// companies and one person: the billing of batch jobs is under test here, not the adapters.
const KNOWN = new Set(['acme.com', 'globex.com']);
const companies = testAdapter<'company'>({
  id: 'companies',
  kind: 'company',
  accepts: ['domain'],
  provides: ['name', 'domain'],
  async lookup(query: CompanyQuery) {
    // A source that cannot be reached for these: nothing looked at, no verdict.
    if (query.domain.startsWith('down-'))
      return { type: 'error', error: { kind: 'upstream', message: 'source down' }, cost: 0 };
    if (!KNOWN.has(query.domain)) return { type: 'miss', cost: 0 };
    return oneHit({ name: query.domain.split('.')[0], domain: query.domain });
  },
});
const people = testAdapter<'person'>({
  id: 'people',
  kind: 'person',
  accepts: ['email'],
  provides: ['full_name', 'email', 'company_domain'],
  async lookup(query: PersonQuery) {
    if (query.by === 'email' && query.email.endsWith('@down-1.com'))
      return { type: 'error', error: { kind: 'timeout', message: 'source down' }, cost: 0 };
    if (query.by !== 'email' || query.email !== 'dana@acme.com') return { type: 'miss', cost: 0 };
    return oneHit({ full_name: 'Dana Whitfield', email: query.email, company_domain: 'acme.com' });
  },
});

// A resolver that cannot see the internet: NXDOMAIN for every name, the verifier's canaries too.
const nxdomain = (type: 'MX' | 'A' | 'AAAA') => async (name: string) => {
  throw new DnsQueryError('not_found', name, type);
};
const lyingResolver: DnsResolver = {
  name: 'lying',
  mx: nxdomain('MX'),
  a: nxdomain('A'),
  aaaa: nxdomain('AAAA'),
};

// 3 hits (one as a URL), 4 misses, 1 record the enricher refuses (a per-record error, billed).
const DOMAINS = [
  'acme.com',
  'https://www.globex.com/about',
  'nobody-1.com',
  'nobody-2.com',
  'acme.com',
  'nobody-3.com',
  'nobody-4.com',
  'not a domain',
];

let dir: string;
let server: TestServer | undefined;
let runner: BatchRunner | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-batch-credits-'));
});
afterEach(async () => {
  await runner?.close({ timeoutMs: 100 });
  await server?.app.close();
  server = runner = undefined;
  await rm(dir, { recursive: true, force: true });
});

/** The server with a SQLite control plane and a running runner wired as `svc serve` wires it. */
async function setup({ hook = true } = {}) {
  const store = createMemoryStore();
  const holder: { runner?: BatchRunner } = {};
  const controlPlane = await createSqliteControlPlaneStore({ path: join(dir, 'control-plane.db') });
  server = await createTestServer({
    controlPlane,
    batch: {
      store,
      get runner() {
        return holder.runner ?? null;
      },
    },
    // Plans of the operator's: the free plan's allowance (1,000 units) with room for the tests'
    // polling, one of them billing company misses.
    options: {
      logLevel: 'silent',
      plans: {
        roomy: { name: 'Roomy', rate_per_second: 1000, burst: 1000 },
        strict: { name: 'Strict', rate_per_second: 1000, burst: 1000, bill_company_misses: true },
      },
    },
  });
  const clock = server.clock;
  const enricher = createEnricher({
    adapters: [companies, people] as EnrichmentAdapter[],
    now: () => clock.now,
  });
  runner = createBatchRunner({
    store,
    processors: [
      createEnrichCompanyProcessor(enricher, { sandbox: createSandboxEnricher() }),
      createEnrichContactProcessor(enricher, { sandbox: createSandboxEnricher() }),
      createVerifyEmailProcessor(createVerifier({ dns: lyingResolver, resultCache: false })),
    ],
    // Small chunks, so a job ends in several commits (each may see it finished).
    chunkSize: 3,
    pollIntervalMs: 5,
    now: () => clock.now,
    resultsUrl: batchResultsPath,
    ...(hook ? { onJobFinished: batchMissCredits({ controlPlane, store }) } : {}),
  });
  holder.runner = runner;
  runner.start();
  return { server, store, controlPlane };
}

async function submit(s: TestServer, key: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await s.app.inject({
    method: 'POST',
    url: '/v2/batch',
    headers: { 'x-api-key': key, ...headers },
    payload: body as object,
  });
  expect(response.statusCode, response.body).toBe(202);
  return response.json() as { id: string; total: number };
}

async function finished(s: TestServer, key: string, id: string) {
  let job: { status: string; counts: Record<string, number>; failed: number } | undefined;
  await expect
    .poll(
      async () => {
        job = (await s.app.inject({ url: `/v2/batch/${id}`, headers: { 'x-api-key': key } })).json();
        return job?.status;
      },
      { timeout: 5000, interval: 10 },
    )
    .toBe('completed');
  return job as NonNullable<typeof job>;
}

async function usage(s: TestServer, key: string) {
  const response = await s.app.inject({ url: '/v2/usage?month=2026-11', headers: { 'x-api-key': key } });
  return response.json() as {
    lines: Array<{ endpoint: string; calls: number; units: number }>;
    days: Array<{ date: string; units: number }>;
  };
}

describe('batch billing of enrichment (DESIGN §7)', () => {
  it('an enrich_company job bills its records at submit and credits its misses when it ends; the quota check still counts every record', async () => {
    const { server: s } = await setup();
    const { liveKey, account } = await s.account('roomy');
    const job = await submit(s, liveKey.secret, { type: 'enrich_company', records: DOMAINS });
    expect(job.total).toBe(8);
    expect(await finished(s, liveKey.secret, job.id)).toMatchObject({
      counts: { matched: 3, no_match: 4 },
      failed: 1,
    });
    // 8 billed at submit, the 4 misses credited: the hits and the refused record stay billed.
    await expect
      .poll(async () => (await usage(s, liveKey.secret)).lines)
      .toEqual([{ endpoint: 'batch_create', calls: 1, units: 4 }]);
    const read = await usage(s, liveKey.secret);
    expect(read.days).toMatchObject([{ date: '2026-11-23', units: 4 }]);
    expect(await s.store.usedUnits(account.id, '2026-11')).toBe(4);

    // A retried submit (same Idempotency-Key) returns the job: not billed, not credited again.
    const again = await submit(
      s,
      liveKey.secret,
      { type: 'enrich_company', records: DOMAINS },
      { 'idempotency-key': 'k1' },
    );
    await finished(s, liveKey.secret, again.id);
    await expect
      .poll(async () => (await usage(s, liveKey.secret)).lines)
      .toEqual([{ endpoint: 'batch_create', calls: 2, units: 8 }]);
    expect(
      (
        await submit(
          s,
          liveKey.secret,
          { type: 'enrich_company', records: DOMAINS },
          { 'idempotency-key': 'k1' },
        )
      ).id,
    ).toBe(again.id);
    await runner?.idle();
    expect((await usage(s, liveKey.secret)).lines).toEqual([
      { endpoint: 'batch_create', calls: 2, units: 8 },
    ]);

    // The allowance is checked against every record at submit (misses are only known later):
    // 992 units are left of the plan's 1,000, so 993 records are refused and nothing is made.
    const tooMany = await s.call('POST', '/v2/batch', liveKey.secret, {
      type: 'enrich_company',
      records: Array.from({ length: 993 }, (_, i) => `nobody-${i}.com`),
    });
    expect(tooMany.statusCode).toBe(402);
    expect(tooMany.json().error).toMatchObject({ code: 'quota_exceeded' });
    expect(tooMany.json().error.message).toContain('this request needs 993 units but 992');
  });

  it('a plan with bill_company_misses keeps them billed; contact misses are billed on every plan; test keys bill nothing', async () => {
    const { server: s } = await setup();
    const strict = await s.account('strict');
    const job = await submit(s, strict.liveKey.secret, { type: 'enrich_company', records: DOMAINS });
    expect((await finished(s, strict.liveKey.secret, job.id)).counts).toMatchObject({ no_match: 4 });

    const free = await s.account('roomy');
    const contacts = await submit(s, free.liveKey.secret, {
      type: 'enrich_contact',
      records: ['dana@acme.com', 'nobody@acme.com', 'nobody@globex.com'],
    });
    expect((await finished(s, free.liveKey.secret, contacts.id)).counts).toMatchObject({
      matched: 1,
      no_match: 2,
    });
    const sandbox = await submit(s, free.testKey.secret, { type: 'enrich_company', records: DOMAINS });
    expect((await finished(s, free.testKey.secret, sandbox.id)).counts).toMatchObject({ no_match: 7 });
    await runner?.idle();

    expect((await usage(s, strict.liveKey.secret)).lines).toEqual([
      { endpoint: 'batch_create', calls: 1, units: 8 },
    ]);
    expect((await usage(s, free.liveKey.secret)).lines).toEqual([
      { endpoint: 'batch_create', calls: 1, units: 3 },
    ]);
  });

  it('records no source could be reached for count all_adapters_failed, not no_match, and are credited on every plan', async () => {
    const { server: s, store } = await setup();
    const strict = await s.account('strict');
    const companies = await submit(s, strict.liveKey.secret, {
      type: 'enrich_company',
      records: ['acme.com', 'nobody-1.com', 'down-1.com', 'down-2.com'],
    });
    expect((await finished(s, strict.liveKey.secret, companies.id)).counts).toEqual({
      matched: 1,
      no_match: 1,
      all_adapters_failed: 2,
    });
    const roomy = await s.account('roomy');
    const contacts = await submit(s, roomy.liveKey.secret, {
      type: 'enrich_contact',
      records: ['dana@acme.com', 'nobody@acme.com', 'x@down-1.com'],
    });
    expect((await finished(s, roomy.liveKey.secret, contacts.id)).counts).toEqual({
      matched: 1,
      no_match: 1,
      all_adapters_failed: 1,
    });
    // Each miss's result says why, as the API's X-Enrichment-Outcome does.
    const page = await store.results(contacts.id, { cursor: null, limit: 10 });
    expect(page.data.map((row) => row.result)).toEqual([
      expect.objectContaining({ person: expect.objectContaining({ full_name: 'Dana Whitfield' }) }),
      { person: null, outcome: 'no_match' },
      { person: null, outcome: 'all_adapters_failed' },
    ]);
    // The strict plan bills its company miss but not the two records nothing was looked up for;
    // contact misses stay billed, the unreached contact does not.
    await expect
      .poll(async () => (await usage(s, strict.liveKey.secret)).lines)
      .toEqual([{ endpoint: 'batch_create', calls: 1, units: 2 }]);
    await expect
      .poll(async () => (await usage(s, roomy.liveKey.secret)).lines)
      .toEqual([{ endpoint: 'batch_create', calls: 1, units: 2 }]);
  });

  it('a verify_email job credits the records its resolver could not verify (dns_unavailable); verdicts stay billed', async () => {
    const { server: s } = await setup();
    const { liveKey } = await s.account('roomy');
    const records = ['a@gmail.com', 'b@yahoo.com', 'c@example.org', 'not an address'];
    const job = await submit(s, liveKey.secret, { type: 'verify_email', records });
    expect((await finished(s, liveKey.secret, job.id)).counts).toEqual({
      unknown: 3,
      dns_unavailable: 3,
      undeliverable: 1,
    });
    // 4 billed at submit, the 3 answers that are not verdicts credited back.
    await expect
      .poll(async () => (await usage(s, liveKey.secret)).lines)
      .toEqual([{ endpoint: 'batch_create', calls: 1, units: 1 }]);
  });

  it('the sweep at start applies the credits a killed worker left undone, once, in this month and the last only', async () => {
    // A runner without the hook stands for a worker killed between the last commit and the credit.
    const { server: s, store, controlPlane } = await setup({ hook: false });
    const { liveKey, account } = await s.account('roomy');
    const job = await submit(s, liveKey.secret, { type: 'enrich_company', records: DOMAINS });
    await finished(s, liveKey.secret, job.id);
    const contacts = await submit(s, liveKey.secret, {
      type: 'enrich_contact',
      records: ['nobody@acme.com'],
    });
    await finished(s, liveKey.secret, contacts.id);
    expect(await s.store.usedUnits(account.id, '2026-11')).toBe(9);

    const now = () => s.clock.now;
    expect(await sweepBatchMissCredits({ controlPlane, store, now })).toBe(1);
    expect((await usage(s, liveKey.secret)).lines).toEqual([
      { endpoint: 'batch_create', calls: 2, units: 5 },
    ]);
    // Run again (the next start): nothing more.
    expect(await sweepBatchMissCredits({ controlPlane, store, now })).toBe(0);
    expect(await s.store.usedUnits(account.id, '2026-11')).toBe(5);

    // From January on, a November job is past the window and is not looked at.
    const later = await submit(s, liveKey.secret, { type: 'enrich_company', records: ['nobody-9.com'] });
    await finished(s, liveKey.secret, later.id);
    const january = () => Date.UTC(2027, 0, 2);
    expect(await sweepBatchMissCredits({ controlPlane, store, now: january })).toBe(0);
    expect(await sweepBatchMissCredits({ controlPlane, store, now })).toBe(1);
    expect(await s.store.usedUnits(account.id, '2026-11')).toBe(5);
  });
});
