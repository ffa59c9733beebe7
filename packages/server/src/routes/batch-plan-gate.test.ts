import {
  type BatchEnricher,
  type BatchRunner,
  createBatchRunner,
  createEnrichCompanyProcessor,
  createEnrichContactProcessor,
  createGeoIpProcessor,
  createMemoryStore,
  createVerifyEmailProcessor,
} from '@svc/batch-runner';
import { JOB_TYPE_IDS, JOB_TYPES, type JobTypeId } from '@svc/core';
import { afterEach, describe, expect, it } from 'vitest';
import { PLAN_GATED_ENDPOINTS } from '../endpoints.js';
import { createTestServer, fixtureGeoResolver, type TestServer } from '../testing/test-server.js';
import { batchResultsPath } from './batch.js';

let runner: BatchRunner | undefined;
let server: TestServer | undefined;
afterEach(async () => {
  await runner?.close({ timeoutMs: 100 });
  await server?.app.close();
  runner = server = undefined;
});

const noMatch: BatchEnricher = {
  enrichContact: async () => ({ match: null }),
  enrichCompany: async () => ({ match: null }),
};

const RECORD: Record<JobTypeId, string> = {
  verify_email: 'a@example.com',
  geo_ip: '81.2.69.142',
  enrich_contact: 'a@example.com',
  enrich_company: 'example.com',
};

/** Plans `without_<type>`: every plan-gated endpoint but the one the job type stands for. */
const plans = Object.fromEntries(
  JOB_TYPE_IDS.map((type) => [
    `without_${type}`,
    {
      name: `Without ${type}`,
      rate_per_second: 100,
      burst: 100,
      monthly_allowance: null,
      endpoints: PLAN_GATED_ENDPOINTS.filter((endpoint) => endpoint !== JOB_TYPES[type].endpoint),
    },
  ]),
);

/** The server with a batch runner that has a processor for every job type (never started: jobs stay queued). */
async function setup() {
  const store = createMemoryStore();
  runner = createBatchRunner({
    store,
    processors: [
      createGeoIpProcessor(await fixtureGeoResolver()),
      createVerifyEmailProcessor({ verifyMany: async () => [] }),
      createEnrichContactProcessor(noMatch),
      createEnrichCompanyProcessor(noMatch),
    ],
    resultsUrl: batchResultsPath,
  });
  server = await createTestServer({ batch: { store, runner }, options: { plans } });
  return server;
}

describe('plan gating of batch jobs (a job type is gated by the endpoint it stands for)', () => {
  it.each(JOB_TYPE_IDS)(
    '%s: refused (403) on a plan without its endpoint, as JSON and as an upload',
    async (type) => {
      const s = await setup();
      const { liveKey } = await s.account(`without_${type}`);
      const endpoint = JOB_TYPES[type].endpoint;
      const json = await s.call('POST', '/v2/batch', liveKey.secret, { type, records: [RECORD[type]] });
      expect(json.statusCode).toBe(403);
      expect(json.json().error).toMatchObject({
        code: 'endpoint_not_in_plan',
        message: `the Without ${type} plan does not include ${endpoint}; upgrade the plan to call it`,
      });
      const upload = await s.app.inject({
        method: 'POST',
        url: `/v2/batch?type=${type}`,
        headers: { 'x-api-key': liveKey.secret, 'content-type': 'text/plain' },
        payload: RECORD[type],
      });
      expect(upload.statusCode).toBe(403);
      expect(upload.json().error.code).toBe('endpoint_not_in_plan');
      // No job was made.
      const list = await s.call('GET', '/v2/batch', liveKey.secret);
      expect(list.json().data).toEqual([]);
    },
  );

  it.each(JOB_TYPE_IDS)('%s: accepted (202) on the plans that include its endpoint', async (type) => {
    const s = await setup();
    const other = JOB_TYPE_IDS.find(
      (candidate) => JOB_TYPES[candidate].endpoint !== JOB_TYPES[type].endpoint,
    );
    const { liveKey } = await s.account(`without_${other}`);
    const response = await s.call('POST', '/v2/batch', liveKey.secret, { type, records: [RECORD[type]] });
    expect(response.statusCode).toBe(202);
    expect(response.json()).toMatchObject({ type, status: 'queued', total: 1 });
  });

  it('an upload without ?type names every job type in its error', async () => {
    const s = await setup();
    const { liveKey } = await s.account('pro');
    const response = await s.app.inject({
      method: 'POST',
      url: '/v2/batch',
      headers: { 'x-api-key': liveKey.secret, 'content-type': 'text/plain' },
      payload: 'a@example.com',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.message).toBe(
      'an uploaded list needs the job type in the query: ?type= one of verify_email, geo_ip, enrich_contact, enrich_company',
    );
  });

  it.each(JOB_TYPE_IDS)(
    '%s: a token scoped to batch_create alone is refused (401); with the endpoint in its scopes it is accepted',
    async (type) => {
      const s = await setup();
      const { liveKey } = await s.account('pro');
      const endpoint = JOB_TYPES[type].endpoint;
      const mint = async (scopes: string[]) => {
        const minted = await s.call('POST', '/v2/tokens', liveKey.secret, { scopes });
        expect(minted.statusCode).toBe(201);
        return minted.json().token as string;
      };
      const submit = async (token: string) =>
        s.call('POST', '/v2/batch', token, { type, records: [RECORD[type]] });
      const narrow = await submit(await mint(['batch_create', 'batch_list']));
      expect(narrow.statusCode).toBe(401);
      expect(narrow.json().error).toMatchObject({
        code: 'invalid_api_key',
        message: `this token's scopes (batch_create, batch_list) do not include ${endpoint}, which a ${type} batch job stands for`,
      });
      const list = await s.call('GET', '/v2/batch', liveKey.secret);
      expect(list.json().data).toEqual([]);
      const wide = await submit(await mint(['batch_create', endpoint]));
      expect(wide.statusCode).toBe(202);
    },
  );
});
