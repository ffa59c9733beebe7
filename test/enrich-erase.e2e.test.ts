import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createScratchDatabase, POSTGRES, scratchName, serviceUrl } from '@svc/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiClient, GEO_CITY_FIXTURE, type ServeChild, startServe } from './support/serve-child.js';

// Issue 26, "privacy on several machines": two `svc serve` processes (two machines, each with its
// own data dir and its own copy of the dataset) on one PostgreSQL database. A person looked up
// through machine B is erased on machine A (`svc enrich erase` with A's settings); from then on B
// refuses her too, though B's own dataset still holds her row: the suppression list and the cache
// are the database's, not a machine's.

const databaseUrl = await serviceUrl(POSTGRES, 'the erase-on-every-machine test (two svc serve processes)');

const E2E_DIR = fileURLToPath(new URL('.', import.meta.url));
const CLI = fileURLToPath(new URL('../packages/cli/src/bin.ts', import.meta.url));

/** `svc …` from source with this machine's settings (as `startServe` runs it). */
async function svc(args: string[], env: Record<string, string>): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', CLI, ...args],
    { cwd: E2E_DIR, env: { PATH: process.env.PATH ?? '', HOME: env.SVC_DATA_DIR ?? '', ...env } },
  );
  return stdout;
}

describe.skipIf(!databaseUrl)('erase on one machine applies on every machine sharing PostgreSQL', () => {
  const cleanup: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step().catch(() => {});
  });

  it('a contact erased through machine A is refused (204 suppressed) by machine B at once', {
    timeout: 120_000,
  }, async () => {
    const database = await createScratchDatabase(databaseUrl as string, scratchName('svc_t_erase'));
    cleanup.push(database.drop);
    const shared = {
      SVC_DATABASE_URL: database.url,
      // Every machine of one deployment shares the server key (it seals the stored secrets).
      SVC_SECRET_KEY: randomBytes(32).toString('hex'),
      // A small geo database, so neither start compiles the default one.
      SVC_GEO_DATABASES: GEO_CITY_FIXTURE,
    };
    // A domain nobody has registered (random per run): the servers' website and DNS adapters look
    // it up too, and must not reach a real company's site.
    const domain = `svc-e2e-${randomBytes(6).toString('hex')}.com`;
    const email = `jane@${domain}`;
    const people = join(await mkdtemp(join(tmpdir(), 'svc-erase-csv-')), 'people.csv');
    cleanup.push(() => rm(join(people, '..'), { recursive: true, force: true }));
    await writeFile(people, `email,full_name,title,company_domain\n${email},Jane Roe,VP Sales,${domain}\n`);

    const machine = async (name: string): Promise<{ env: Record<string, string>; serve: ServeChild }> => {
      const dataDir = await mkdtemp(join(tmpdir(), `svc-erase-${name}-`));
      cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
      const env = { ...shared, SVC_DATA_DIR: dataDir };
      // Each machine imports the same people into its own dataset index (a file in its data dir).
      await svc(['enrich', 'import', people, '--kind', 'person'], env);
      const serve = await startServe({ dataDir, env });
      cleanup.push(() => serve.stop());
      return { env, serve };
    };
    const a = await machine('a');
    const b = await machine('b');
    // The first start created the owner account in the shared control plane; its key works on both.
    const key = a.serve.liveKey;
    expect(key, a.serve.stderr()).toMatch(/^sk_live_/);
    const apiB = await ApiClient.connect(b.serve.url);
    const apiA = await ApiClient.connect(a.serve.url);
    const contact = (api: ApiClient) =>
      api.request<{ person: { full_name: string } }>('POST', '/v2/enrich/contact', {
        key,
        json: { email },
      });

    const found = await contact(apiB);
    expect(found.status, found.text).toBe(200);
    expect(found.body.person.full_name).toBe('Jane Roe');

    const erased = JSON.parse(await svc(['enrich', 'erase', '--email', email, '--json'], a.env));
    // B's lookup left its adapters' outcomes in the shared cache (the dataset's hit, and the
    // others' misses): A's erase purged them, and removed her from A's own dataset.
    expect(erased).toMatchObject({ suppressed: true, dataset_rows_removed: 1 });
    expect(erased.cache_entries_purged).toBeGreaterThanOrEqual(1);

    for (const api of [apiB, apiA]) {
      const refused = await contact(api);
      expect(refused.status, refused.text).toBe(204);
      expect(refused.headers.get('x-enrichment-outcome')).toBe('suppressed');
    }
  });
});
