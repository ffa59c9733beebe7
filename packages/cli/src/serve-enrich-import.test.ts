import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadServerConfig, type RunningServer, resolveServerOptions } from '@svc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from './exit-codes.js';
import { main } from './main.js';
import { startServer } from './serve-run.js';
import { captureIo } from './testing/capture-io.js';

const fixtures = fileURLToPath(new URL('../../../fixtures/maxmind-db/test-data/', import.meta.url));

describe('svc serve and svc enrich import', () => {
  let root: string;
  let server: RunningServer | undefined;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'svc-serve-enrich-import-'));
  });
  afterAll(async () => {
    await server?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('a dataset imported while the server runs answers its next request, and a re-import too', async () => {
    // One data directory for both, as a self-hoster has it: the server started before any import.
    const dataDir = join(root, 'data');
    const env = { SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'silent' };
    const io = captureIo();
    io.env = env;
    io.cwd = root;
    const loaded = await loadServerConfig({
      file: null,
      env,
      cwd: root,
      overrides: { host: '127.0.0.1', port: 0 },
    });
    // MaxMind's small test file instead of the bundled data's first preparation.
    loaded.options.geo = { ...loaded.options.geo, databases: [`${fixtures}GeoIP2-City-Test.mmdb`] };
    const resolved = resolveServerOptions(loaded.options);
    server = await startServer(io, loaded, resolved, { handleSignals: false });
    expect(server.options.dataDir).toBe(dataDir);
    const liveKey = /live key: +(sk_live_\w+)/.exec(io.err())?.[1] as string;
    const url = server.url;
    // POST /v2/enrich/<what> with a live key: the status and, on a 200, the body.
    const enrich = async (what: 'contact' | 'company', query: Record<string, string>) => {
      const response = await fetch(`${url}/v2/enrich/${what}`, {
        method: 'POST',
        headers: { 'X-API-Key': liveKey, 'content-type': 'application/json' },
        body: JSON.stringify(query),
      });
      const body =
        response.status === 200
          ? ((await response.json()) as {
              person?: Record<string, unknown>;
              company?: Record<string, unknown>;
            })
          : null;
      return { status: response.status, body };
    };
    const contact = (email: string) => enrich('contact', { email });
    const company = (domain: string) => enrich('company', { domain });
    const importFile = async (name: string, text: string, kind: 'person' | 'company') => {
      await writeFile(join(root, name), text);
      const run = captureIo();
      run.env = env;
      run.cwd = root;
      const code = await main(['enrich', 'import', name, '--kind', kind], run);
      expect(run.err()).toBe('');
      expect(code).toBe(EXIT.ok);
      return run.out();
    };

    // No dataset yet (no file in the data dir): no answer for Ada (the other adapters cannot
    // reach anything from here: 503 all adapters failed, or a miss where they can).
    expect((await contact('ada@acme.com')).status).not.toBe(200);

    // Imported while the server runs: the next request finds her, no restart.
    const out = await importFile(
      'people.csv',
      'email,name,title\nada@acme.com,Ada Lovelace,VP Engineering\n',
      'person',
    );
    expect(out).toContain(`dataset ${join(dataDir, 'enrich-dataset.db')}: 1 people, 0 companies`);
    expect(await contact('ada@acme.com')).toMatchObject({
      status: 200,
      body: { person: { full_name: 'Ada Lovelace', title: 'VP Engineering' } },
    });

    // More rows into the same file, the company this time: also seen at once.
    expect((await company('acme.com')).body?.company?.name).not.toBe('Acme Corporation');
    await importFile('companies.csv', 'domain,name\nacme.com,Acme Corporation\n', 'company');
    expect(await company('acme.com')).toMatchObject({
      status: 200,
      body: { company: { name: 'Acme Corporation' } },
    });

    // The file replaced (removed, then imported afresh: a new file): the server reopens it.
    await rm(join(dataDir, 'enrich-dataset.db'));
    await rm(join(dataDir, 'enrich-dataset.db-wal'), { force: true });
    await rm(join(dataDir, 'enrich-dataset.db-shm'), { force: true });
    await importFile('people2.csv', 'email,name,title\nada@acme.com,Ada King,Countess\n', 'person');
    expect(await contact('ada@acme.com')).toMatchObject({
      status: 200,
      body: { person: { full_name: 'Ada King', title: 'Countess' } },
    });
  }, 60_000);
});
