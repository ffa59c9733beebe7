import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createBatchRunner, createGeoIpProcessor, createSqliteStore } from '@svc/batch-runner';
import { type FakeDnsServer, startDnsServer } from '@svc/testkit';
import { tempDirPerTest } from '@svc/testkit/vitest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EXIT } from './exit-codes.js';
import { main } from './main.js';
import { captureIo } from './testing/capture-io.js';

// The data dir every command uses when none is configured, in a HOME of the test's own: never
// the real one.

const dir = tempDirPerTest('svc-cli-data-dir-');
let root: string;
let home: string;
let dns: FakeDnsServer;
beforeAll(async () => {
  dns = await startDnsServer({ zones: { 'acme.com': { TXT: ['v=spf1 -all'] } } });
});
afterAll(async () => {
  await dns.close();
});
beforeEach(async () => {
  root = dir();
  home = join(root, 'home');
  await mkdir(join(root, 'work'), { recursive: true });
  await writeFile(join(root, 'work', 'people.csv'), 'email,name\nada@acme.com,Ada Lovelace\n');
});

async function svc(argv: string[], env: Record<string, string> = {}) {
  const io = captureIo();
  io.cwd = join(root, 'work');
  io.env = { HOME: home, ...env };
  const code = await main(argv, io);
  return { code, out: io.out(), err: io.err() };
}

/** A queued job in a job database, as an earlier `svc batch run` (or the API) left it. */
async function queuedJob(db: string): Promise<string> {
  const store = await createSqliteStore({ path: db });
  const runner = createBatchRunner({
    store,
    processors: [
      createGeoIpProcessor({ lookup: () => ({ country: null, latitude: null, longitude: null }) }),
    ],
  });
  const job = await runner.submit({ type: 'geo_ip', records: ['8.8.8.8'] });
  await runner.close({ timeoutMs: 0 });
  await store.close();
  return job.id;
}

describe('one data dir for the CLI and svc serve', () => {
  it('svc enrich import writes into the data dir svc serve uses, and a lookup names it', async () => {
    const userDir = join(home, '.local', 'share', 'svc');
    const imported = await svc(['enrich', 'import', 'people.csv', '--kind', 'person', '--json']);
    expect(imported.code, imported.err).toBe(EXIT.ok);
    expect(JSON.parse(imported.out).dataset).toBe(join(userDir, 'enrich-dataset.db'));
    const serve = await svc(['serve', '--print-config']);
    expect(JSON.parse(serve.out).options.dataDir).toBe(userDir);
    // A miss names the dataset it searched.
    const miss = await svc([
      'enrich',
      'contact',
      '--email',
      'bob@acme.com',
      '--adapters',
      'dataset',
      '--dns',
      dns.address,
    ]);
    expect(miss.code).toBe(EXIT.ok);
    expect(miss.err).toContain(`enrich: searched the dataset ${join(userDir, 'enrich-dataset.db')}`);
    const elsewhere = await svc(
      ['enrich', 'contact', '--email', 'bob@acme.com', '--adapters', 'dataset', '--dns', dns.address],
      {
        XDG_DATA_HOME: join(root, 'xdg'),
      },
    );
    expect(elsewhere.err).toContain(`enrich: no dataset at ${join(root, 'xdg', 'svc', 'enrich-dataset.db')}`);
  });

  it('svc batch status of an unknown job names the database it searched', async () => {
    const db = join(root, 'data', 'batch.db');
    await mkdir(join(root, 'data'));
    await queuedJob(db);
    const unknown = await svc(['batch', 'status', 'batch_nope'], { SVC_DATA_DIR: join(root, 'data') });
    expect(unknown.code).toBe(EXIT.failure);
    expect(unknown.err).toBe(`svc: no batch job "batch_nope" in ${db}\n`);
    const noDatabase = await svc(['batch', 'results', 'batch_nope']);
    expect(noDatabase.code).toBe(EXIT.failure);
    expect(noDatabase.err).toContain(join(home, '.local', 'share', 'svc', 'batch.db'));
  });

  it("svc accounts and svc keys keep an earlier ./svc-data holding the server's accounts, saying so", async () => {
    const earlier = join(root, 'work', 'svc-data');
    const created = await svc(['accounts', 'create', '--name', 'old', '--data-dir', earlier, '--json']);
    expect(created.code, created.err).toBe(EXIT.ok);
    const id = JSON.parse(created.out).account.id as string;
    const list = await svc(['accounts', 'list', '--json']);
    expect(list.code, list.err).toBe(EXIT.ok);
    expect(JSON.parse(list.out).data.map((account: { id: string }) => account.id)).toEqual([id]);
    expect(list.err).toContain(`svc: notice: using the data in ${earlier}, where earlier versions kept it`);
    const unknown = await svc(['keys', 'list', 'acct_nope']);
    expect(unknown.err).toContain(`no account acct_nope in ${join(earlier, 'control-plane.db')}`);
  });

  it("keeps using an earlier version's cache while it holds data and the data dir does not, saying so", async () => {
    const cache = join(home, '.cache', 'svc');
    await mkdir(cache, { recursive: true });
    const id = await queuedJob(join(cache, 'batch.db'));
    const userDir = join(home, '.local', 'share', 'svc');
    // The data dir exists already (made by `svc geo`, say) but holds none of that data.
    await mkdir(join(userDir, 'geo'), { recursive: true });
    const status = await svc(['batch', 'status', id, '--json']);
    expect(status.code, status.err).toBe(EXIT.ok);
    expect(JSON.parse(status.out)).toMatchObject({ id, status: 'queued' });
    expect(status.err).toBe(
      `svc: notice: using the data in ${cache}, where earlier versions kept it; the default data dir is now ${userDir}. ` +
        `Move its files there (with svc stopped), or set SVC_DATA_DIR=${cache} to keep it where it is.\n`,
    );
    // $XDG_CACHE_HOME was the earlier versions' cache too.
    const xdg = await svc(['batch', 'list'], { XDG_CACHE_HOME: join(root, 'xdg-cache') });
    expect(xdg.err).not.toContain('notice');
    // Once the data dir holds data, it is used, and the data left behind is named.
    await queuedJob(join(userDir, 'batch.db'));
    const after = await svc(['batch', 'status', id]);
    expect(after.code).toBe(EXIT.failure);
    expect(after.err).toContain(`svc: notice: ${cache} holds data of an earlier version that is not used`);
    expect(after.err).toContain(`no batch job "${id}" in ${join(userDir, 'batch.db')}`);
    expect(existsSync(join(cache, 'batch.db'))).toBe(true);
  });
});
