import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PAID_PROVIDERS } from '@svc/enricher';
import { tempDirPerTest } from '@svc/testkit/vitest';
import { afterEach, describe, expect, it } from 'vitest';
import { loadServerConfig } from './config.js';
import type { RunningServer } from './serve.js';
import { ENRICH_CACHE_DB_FILE, ENRICH_DATASET_DB_FILE, openServeEnricher } from './serve-enricher.js';
import { printedTestKey, serveForTest } from './testing/serve-for-test.js';

const dir = tempDirPerTest('svc-serve-enrich-');
const running: RunningServer[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) await server.close();
});

/** The adapters svc serve always has, in priority order: no key needed. */
const KEYLESS = ['dataset', 'dataset_company', 'website', 'website_people', 'dns'];

describe('openServeEnricher', () => {
  it('keyless adapters always, a paid provider only with its key in the environment, in priority order', async () => {
    const keyless = await openServeEnricher({ dataDir: dir(), env: {} });
    // The dataset adapters are there from the start (they sit out of calls until an import
    // creates the file, which the server never creates itself).
    expect(Object.keys(keyless.enricher.circuits())).toEqual(KEYLESS);
    expect(existsSync(join(dir(), ENRICH_DATASET_DB_FILE))).toBe(false);
    await keyless.close();
    const keyed = await openServeEnricher({ dataDir: dir(), env: { SVC_HUNTER_API_KEY: 'h-key' } });
    expect(Object.keys(keyed.enricher.circuits())).toEqual([...KEYLESS, 'hunter', 'hunter_company']);
    await keyed.close();
    expect(existsSync(join(dir(), ENRICH_CACHE_DB_FILE))).toBe(true);
  });

  it("every paid provider's key is used by the enricher, and svc serve's configuration does not call it ignored", async () => {
    const env = Object.fromEntries(PAID_PROVIDERS.map((provider) => [provider.envVar, `${provider.id}-key`]));
    expect(Object.keys(env)).toEqual([
      'SVC_PEOPLEDATALABS_API_KEY',
      'SVC_HUNTER_API_KEY',
      'SVC_APOLLO_API_KEY',
    ]);
    const keyed = await openServeEnricher({ dataDir: dir(), env });
    expect(Object.keys(keyed.enricher.circuits())).toEqual([
      ...KEYLESS,
      ...PAID_PROVIDERS.flatMap((provider) => [provider.id, `${provider.id}_company`]),
    ]);
    await keyed.close();
    // It warned that SVC_HUNTER_API_KEY and the others "are ignored" while it used them.
    const loaded = await loadServerConfig({ env: { ...env, SVC_PROT: '1' }, cwd: dir() });
    expect(loaded.warnings).toEqual(['SVC_PROT is not a setting svc serve knows; it is ignored']);
  });
});

describe('svc serve enrichment', () => {
  it('test keys: /v2/enrich answers from the sandbox, and enrich_company batch jobs run through it', async () => {
    // The first start's keys are printed on stderr (never on stdout, the log's stream).
    const { server, err } = await serveForTest(dir(), {}, { batchStopTimeoutMs: 200 });
    running.push(server);
    const key = printedTestKey(err()) as string;
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });

    const person = await call('POST', '/v2/enrich/contact', { email: 'match@acme.com' });
    expect(person.status).toBe(200);
    expect(await person.json()).toMatchObject({
      person: { full_name: 'Sandbox Match', company: { domain: 'acme.com' } },
    });
    expect((await call('POST', '/v2/enrich/company', { domain: 'acme.com' })).status).toBe(204);

    const created = await call('POST', '/v2/batch', {
      type: 'enrich_company',
      records: ['match.io', 'acme.com'],
    });
    expect(created.status).toBe(202);
    const job = (await created.json()) as { id: string };
    await expect
      .poll(
        async () => ((await (await call('GET', `/v2/batch/${job.id}`)).json()) as { status: string }).status,
      )
      .toBe('completed');
    const results = (await (await call('GET', `/v2/batch/${job.id}/results`)).json()) as { data: unknown[] };
    expect(results.data).toMatchObject([
      { ok: true, result: { company: { domain: 'match.io', name: 'Sandbox Company' } } },
      { ok: true, result: { company: null } },
    ]);
    expect(existsSync(join(dir(), 'data', ENRICH_CACHE_DB_FILE))).toBe(true);
  });
});
