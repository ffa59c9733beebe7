import { readFile, writeFile } from 'node:fs/promises';
import createClient from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { paths } from './generated/openapi.js';
import { CLIENT_TYPES_FILE, clientTypesFor } from './support/client-types.js';
import { GEO_CITY_FIXTURE, type ServeChild, startServe } from './support/serve-child.js';

// A client typed from the served OpenAPI document (openapi-typescript + openapi-fetch). The
// types are committed in generated/openapi.ts, so `pnpm typecheck` checks the calls below against
// the API; this test fails when the served document no longer gives those types.

let server: ServeChild;
beforeAll(async () => {
  server = await startServe({ env: { SVC_GEO_DATABASES: GEO_CITY_FIXTURE } });
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

describe('a typed client generated from GET /v2/openapi.json', () => {
  it('the committed types cover exactly the operations the server serves', async () => {
    const document = (await (await fetch(`${server.url}/v2/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const generated = await clientTypesFor(document);
    if (process.env.SVC_UPDATE_GENERATED === '1') await writeFile(CLIENT_TYPES_FILE, generated);
    // Field-level drift shows up in the calls below (typechecked, and checked at run time); a
    // route added or removed shows up here. Regenerate with SVC_UPDATE_GENERATED=1.
    const operations = (text: string) =>
      [...text.matchAll(/^ {4}"(\/v2\/[^"]*)": \{[\s\S]*?^ {4}\};/gm)]
        .flatMap((match) =>
          [
            ...(match[0] ?? '').matchAll(
              /^ {8}(get|put|post|delete|patch): operations|^ {8}(get|put|post|delete|patch): \{/gm,
            ),
          ].map((method) => `${method[1] ?? method[2]} ${match[1]}`),
        )
        .sort();
    const served = Object.entries(document.paths)
      .flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`))
      .sort();
    expect(operations(generated)).toEqual(served);
    expect(operations(await readFile(CLIENT_TYPES_FILE, 'utf8'))).toEqual(served);
  });

  it('makes calls whose requests and answers are typed', async () => {
    const client = createClient<paths>({ baseUrl: server.url, headers: { 'X-API-Key': server.liveKey } });
    const health = await client.GET('/v2/health');
    // ok, or degraded naming dns_resolver where this machine's resolver cannot see the canaries.
    expect(health.data?.status === 'ok' ? [] : health.data?.failing).toEqual(
      health.data?.status === 'ok' ? [] : ['dns_resolver'],
    );

    const geo = await client.GET('/v2/geo/{ip}', { params: { path: { ip: '81.2.69.142' } } });
    expect(geo.data?.country).toBe('GB');
    expect(geo.data?.city).toBe('London');

    const refused = await client.GET('/v2/geo/{ip}', { params: { path: { ip: '10.0.0.1' } } });
    expect(refused.response.status).toBe(400);
    expect(refused.error?.error.code).toBe('invalid_ip');

    const sandbox = createClient<paths>({ baseUrl: server.url, headers: { 'X-API-Key': server.testKey } });
    const verified = await sandbox.POST('/v2/verify/email', { body: { email: 'risky@example.com' } });
    expect(verified.data?.state).toBe('risky');

    const usage = await client.GET('/v2/usage', {
      params: { query: { month: new Date().toISOString().slice(0, 7) } },
    });
    expect(usage.data?.lines.find((line) => line.endpoint === 'geo_ip')?.units).toBe(1);
  });
});
