import { type StaticSite, startStaticSite } from '@svc/testkit';
import { afterAll, beforeAll } from 'vitest';
import type { CompanyQuery, EnrichmentAdapter, LookupOutcome } from '../adapter.js';
import { describeAdapter } from './describe-adapter.js';
import { loopbackFetch } from './fake-provider.js';

// A small adapter that implements the real contract over HTTP: GET /companies/<domain>.json on a
// loopback site. It shows the suite passing an adapter that fetches through the context.
let site: StaticSite;
beforeAll(async () => {
  site = await startStaticSite({
    routes: {
      '/companies/acme.com.json': JSON.stringify({ name: 'Acme', employees: 40 }),
      '/companies/broken.com.json': { status: 503, body: 'down' },
    },
  });
});
afterAll(() => site.close());

function httpCompanies(): EnrichmentAdapter<'company'> {
  return {
    id: 'test_http',
    kind: 'company',
    accepts: ['domain'],
    provides: ['name', 'employee_count'],
    cost: 0,
    billsMisses: false,
    ttl: { hitSeconds: 3600, missSeconds: 600 },
    concurrency: 2,
    async lookup(query: CompanyQuery, context): Promise<LookupOutcome<'company'>> {
      try {
        const response = await context.fetch(`${site.url}/companies/${query.domain}.json`, {
          signal: context.signal,
        });
        if (response.status === 404) return { type: 'miss', cost: 0 };
        if (!response.ok)
          return {
            type: 'error',
            error: { kind: 'upstream', message: `HTTP ${response.status}`, status: response.status },
            cost: 0,
          };
        const body = (await response.json()) as { name: string; employees: number };
        return {
          type: 'hit',
          candidates: [{ fields: { name: body.name, employee_count: body.employees }, confidence: 0.9 }],
          cost: 0,
        };
      } catch (error) {
        return {
          type: 'error',
          error: { kind: context.signal.aborted ? 'timeout' : 'upstream', message: String(error) },
          cost: 0,
        };
      }
    },
  };
}

describeAdapter('test_http', {
  create: httpCompanies,
  hits: [{ by: 'domain', domain: 'acme.com' }],
  misses: [{ by: 'domain', domain: 'unknown.org' }],
  context: loopbackFetch,
  upstreamFailure: {
    query: { by: 'domain', domain: 'broken.com' },
    context: loopbackFetch,
    kind: 'upstream',
  },
});
