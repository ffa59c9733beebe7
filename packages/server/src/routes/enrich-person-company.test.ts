import {
  type BatchRunner,
  createBatchRunner,
  createEnrichContactProcessor,
  createMemoryStore,
} from '@svc/batch-runner';
import { type StaticSite, startStaticSite } from '@svc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxEnricher } from '../sandbox-enricher.js';
import { loopbackWebsiteEnricher } from '../testing/loopback-website-enricher.js';
import { createTestServer, type TestServer } from '../testing/test-server.js';
import { batchResultsPath } from './batch.js';

// A contact's company facts through the real server, listening on a real socket, over the real
// website adapters reading acme.com from the testkit's HTTP site (every name resolves to the
// loopback): the person from the team page, the company from the company lookup of its domain.
const HOME = `<!doctype html><html lang="en"><head><title>Acme Widgets</title>
<meta property="og:site_name" content="Acme Widgets">
<meta name="description" content="Acme makes widgets for factories.">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Organization","name":"Acme Widgets",
 "url":"https://acme.com","foundingDate":"2004","numberOfEmployees":{"@type":"QuantitativeValue","value":120},
 "sameAs":["https://www.linkedin.com/company/acme-widgets"]}</script>
<script src="https://js.hs-scripts.com/1234.js"></script></head>
<body><nav><a href="/team">Team</a></nav><p>Widgets since 2004.</p></body></html>`;
// The team page has no schema.org markup: people as cards of plain HTML.
const TEAM = `<!doctype html><html lang="en"><title>Team</title><h1>Our team</h1><div class="team">
<div class="card"><img src="/dana.jpg" alt=""><h3>Dana Whitfield</h3><p>VP of Engineering</p>
 <a href="mailto:dana@acme.com">Email Dana</a></div>
<div class="card"><img src="/sam.jpg" alt=""><h3>Sam Ortiz</h3><p>Head of Sales</p></div></div></html>`;

let site: StaticSite;
let server: TestServer;
let base: string;
let runner: BatchRunner;
const lines: string[] = [];
beforeAll(async () => {
  site = await startStaticSite({ routes: { '/': HOME, '/team': TEAM } });
  const enricher = loopbackWebsiteEnricher((domain) => `http://${domain}:${site.port}/`);
  const store = createMemoryStore();
  const holder: { runner?: BatchRunner } = {};
  server = await createTestServer({
    enricher,
    logStream: { write: (line: string) => lines.push(line) },
    options: { logLevel: 'info' },
    batch: {
      store,
      get runner() {
        return holder.runner ?? null;
      },
    },
  });
  runner = createBatchRunner({
    store,
    processors: [createEnrichContactProcessor(enricher, { sandbox: createSandboxEnricher() })],
    pollIntervalMs: 5,
    now: () => server.clock.now,
    resultsUrl: batchResultsPath,
  });
  holder.runner = runner;
  runner.start();
  base = await server.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await runner?.close({ timeoutMs: 100 });
  await server?.app.close();
  await site?.close();
});

async function call(key: string, path: string, payload?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method: payload === undefined ? 'GET' : 'POST',
    headers: { 'x-api-key': key, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
  });
  // biome-ignore lint/suspicious/noExplicitAny: the test reads the answer's JSON as it comes
  const body: any = response.status === 204 ? null : await response.json();
  return { status: response.status, body, requestId: response.headers.get('x-request-id') };
}

const COMPANY = {
  name: 'Acme Widgets',
  domain: 'acme.com',
  employee_count: 120,
  founded: 2004,
  technologies: ['HubSpot'],
  description: 'Acme makes widgets for factories.',
  social: { linkedin: 'https://www.linkedin.com/company/acme-widgets' },
  language: 'en',
};

describe("POST /v2/enrich/contact: the person's company from the company lookup", () => {
  it('answers the company fields of the person’s company domain, each with its source', async () => {
    const { liveKey } = await server.account();
    const { status, body, requestId } = await call(liveKey.secret, '/v2/enrich/contact', {
      email: 'dana@acme.com',
    });
    expect(status).toBe(200);
    expect(body.person).toMatchObject({
      full_name: 'Dana Whitfield',
      title: 'VP of Engineering',
      company: COMPANY,
    });
    expect(body.person.sources.title).toMatchObject({
      adapter: 'website_people',
      evidence: `team page card (http://acme.com:${site.port}/team)`,
    });
    expect(body.person.seniority).toBe('vp');
    // The request's log line says how the person's and the company's adapters answered.
    const logged = () =>
      lines
        .map((line) => JSON.parse(line))
        .find((entry) => entry.msg === 'request' && entry.request_id === requestId);
    await expect.poll(logged).toBeDefined();
    expect(logged()).toMatchObject({
      enrichment_outcome: 'match',
      enrichment_adapters: { website_people: 'hit' },
      enrichment_company_adapters: { website: 'hit' },
    });
    expect(body.person.sources.company_founded).toMatchObject({
      adapter: 'website',
      evidence: 'schema.org Organization (identity)',
    });
    expect(body.person.sources.company_technologies).toMatchObject({
      adapter: 'website',
      evidence: 'fingerprints',
    });

    // The company answer is cached per domain: a company lookup now and another contact at the
    // same company read no page again.
    const pages = site.requests.length;
    const company = await call(liveKey.secret, '/v2/enrich/company', { domain: 'acme.com' });
    expect(company.body.company).toMatchObject(COMPANY);
    const again = await call(liveKey.secret, '/v2/enrich/contact', { email: 'dana@acme.com' });
    expect(again.body.person.company).toMatchObject(COMPANY);
    expect(site.requests.length).toBe(pages);
  });

  it('a batch enrich_contact job returns the same company fields', async () => {
    const { liveKey } = await server.account();
    const job = await call(liveKey.secret, '/v2/batch', {
      type: 'enrich_contact',
      records: ['dana@acme.com', 'nobody@acme.com'],
    });
    expect(job.status).toBe(202);
    await expect
      .poll(async () => (await call(liveKey.secret, `/v2/batch/${job.body.id}`)).body.status, {
        timeout: 10_000,
        interval: 20,
      })
      .toBe('completed');
    const results = await call(liveKey.secret, `/v2/batch/${job.body.id}/results`);
    expect(results.body.data[0]).toMatchObject({
      input: 'dana@acme.com',
      ok: true,
      result: { person: { full_name: 'Dana Whitfield', company: COMPANY } },
    });
    expect(results.body.data[1]).toMatchObject({
      input: 'nobody@acme.com',
      ok: true,
      result: { person: null },
    });
  });
});
