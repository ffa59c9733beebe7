import type { CompanyQuery } from '@svc/enricher';
import { closedPort, type StaticSite, startStaticSite } from '@svc/testkit';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loopbackWebsiteEnricher } from '../testing/loopback-website-enricher.js';
import { testAdapter } from '../testing/test-adapter.js';
import { createTestServer, type TestServer } from '../testing/test-server.js';

// The real website adapters behind the real orchestrator, reading real sockets: `live.com` is a
// testkit HTTP site with a homepage and no team, every other domain a port nothing listens on.
let site: StaticSite;
let refused: number;
beforeAll(async () => {
  site = await startStaticSite({ routes: { '/': '<html><p>Hello</p></html>' } });
  refused = await closedPort();
});
afterAll(async () => {
  await site.close();
});

/** A company source of another kind that answers a miss for everything (a reached source). */
const registry = testAdapter<'company'>({
  id: 'registry',
  kind: 'company',
  accepts: ['domain'],
  provides: ['name', 'founded'],
  async lookup(_query: CompanyQuery) {
    return { type: 'miss', cost: 0 };
  },
});

let server: TestServer;
let lines: string[];
afterEach(async () => {
  await server?.app.close();
});

async function start() {
  lines = [];
  server = await createTestServer({
    enricher: loopbackWebsiteEnricher(
      (domain) => `http://${domain}:${domain === 'live.com' ? site.port : refused}/`,
      [registry],
    ),
    logStream: { write: (line: string) => lines.push(line) },
    options: { logLevel: 'info' },
  });
  return server.account();
}

const post = (key: string, url: string, body: object) => server.call('POST', url, key, body);

/** A 204 whose `X-Enrichment-Outcome` says why nothing was found. */
function expectNoContent(response: LightMyRequestResponse, outcome: string) {
  expect(response.statusCode).toBe(204);
  expect(response.headers['x-enrichment-outcome']).toBe(outcome);
}

async function usage(key: string) {
  const response = await server.call('GET', '/v2/usage', key);
  return (response.json() as { lines: Array<{ endpoint: string; units: number }> }).lines;
}

/** The request log line of the request with this id. */
function logLine(requestId: string): Record<string, unknown> {
  const line = lines
    .map((text) => JSON.parse(text))
    .find((entry) => entry.request_id === requestId && entry.msg === 'request');
  expect(line).toBeDefined();
  return line;
}

describe('misses that explain themselves', () => {
  it('a site read without the person: 204 not_found_on_site, billed; the log line says how each adapter answered', async () => {
    const { liveKey } = await start();
    const response = await post(liveKey.secret, '/v2/enrich/contact', { email: 'jane@live.com' });
    expectNoContent(response, 'not_found_on_site');
    await expect.poll(() => lines.length).toBeGreaterThan(0);
    expect(logLine(response.headers['x-request-id'] as string)).toMatchObject({
      status: 204,
      enrichment_outcome: 'not_found_on_site',
      enrichment_adapters: { website_people: 'miss' },
    });
    expect(await usage(liveKey.secret)).toContainEqual(
      expect.objectContaining({ endpoint: 'enrich_contact', units: 1 }),
    );
  });

  it('no web server for a contact (the only source): 503 upstream_timeout, not billed', async () => {
    const { liveKey } = await start();
    const response = await post(liveKey.secret, '/v2/enrich/contact', { email: 'jane@gone.com' });
    expect(response.statusCode).toBe(503);
    expect(response.json().error).toMatchObject({ code: 'upstream_timeout' });
    expect(response.json().error.message).toContain('website_people');
    expect(response.headers['x-enrichment-outcome']).toBe('all_adapters_failed');
    await expect.poll(() => lines.length).toBeGreaterThan(0);
    expect(logLine(response.headers['x-request-id'] as string)).toMatchObject({
      status: 503,
      enrichment_outcome: 'all_adapters_failed',
      enrichment_adapters: { website_people: 'miss:unreachable' },
    });
    // Asked again, the cached miss is still no verdict.
    expect((await post(liveKey.secret, '/v2/enrich/contact', { email: 'jane@gone.com' })).statusCode).toBe(
      503,
    );
    expect(await usage(liveKey.secret)).toEqual([]);
  });

  it('no web server for a company, another source answered: 204 site_unreachable; a site read: not_found_on_site', async () => {
    const { liveKey } = await start();
    const gone = await post(liveKey.secret, '/v2/enrich/company', { domain: 'gone.com' });
    expectNoContent(gone, 'site_unreachable');
    // A site with nothing the adapter can read: reached, and no company found on it.
    const live = await post(liveKey.secret, '/v2/enrich/company', { domain: 'live.com' });
    expectNoContent(live, 'not_found_on_site');
  });

  it('an erased subject: 204 suppressed; test keys explain their misses too', async () => {
    const { liveKey, testKey } = await start();
    await server.app.svc.enricher?.erase({ email: 'jane@live.com' });
    const erased = await post(liveKey.secret, '/v2/enrich/contact', { email: 'jane@live.com' });
    expectNoContent(erased, 'suppressed');
    const sandbox = await post(testKey.secret, '/v2/enrich/contact', { email: 'nobody@acme.com' });
    expectNoContent(sandbox, 'no_match');
  });

  it('the OpenAPI document names the header and its values on both 204s', async () => {
    await start();
    const document = (await server.app.inject({ method: 'GET', url: '/v2/openapi.json' })).json();
    for (const path of ['/v2/enrich/contact', '/v2/enrich/company']) {
      const header = document.paths[path].post.responses['204'].headers['X-Enrichment-Outcome'];
      expect(header.schema?.enum ?? header.enum).toEqual([
        'no_match',
        'not_found_on_site',
        'site_unreachable',
        'suppressed',
        'all_adapters_failed',
      ]);
    }
  });
});
