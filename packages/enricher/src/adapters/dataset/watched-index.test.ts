import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEnricher } from '../../enricher.js';
import { createMemoryCache } from '../../index.js';
import { createDatasetAdapters } from './dataset.js';
import { openDatasetIndex } from './dataset-index.js';
import { type WatchedDatasetIndex, watchDatasetIndex } from './watched-index.js';

let dir: string;
let path: string;
const opened: WatchedDatasetIndex[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'enricher-watched-'));
  path = join(dir, 'dataset.db');
});
afterEach(() => {
  for (const watched of opened.splice(0)) watched.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What another process (`svc enrich import`) does: opens the file, imports, closes. */
async function importPeople(target: string, csv: string): Promise<void> {
  const index = await openDatasetIndex({ path: target });
  const source = join(dir, `import-${Math.random()}.csv`);
  writeFileSync(source, csv);
  await index.importFile(source, { kind: 'person' });
  index.close();
}

/** A SQLite file goes with its -wal and -shm: a new file beside an old WAL would replay it. */
function removeDataset(): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
}

async function watch(): Promise<WatchedDatasetIndex> {
  const watched = await watchDatasetIndex({ path });
  opened.push(watched);
  return watched;
}

describe('watchDatasetIndex', () => {
  it('follows the file: absent, imported after the start, added to, started afresh, removed', async () => {
    const watched = await watch();
    const cache = createMemoryCache();
    const { person } = createDatasetAdapters(watched);
    const enricher = createEnricher({ adapters: [person], cache });
    const ada = () => enricher.enrichContact({ email: 'ada@acme.com' });

    // No file: the adapter sits out (no report, so not a "miss" of a dataset that is not there),
    // and nothing is created.
    expect(await watched.available()).toBe(false);
    expect((await ada()).adapters).toEqual([]);

    await importPeople(path, 'email,name\nada@acme.com,Ada Lovelace\n');
    expect((await ada()).match?.full_name).toBe('Ada Lovelace');
    // Never cached: what the cache holds would outlive the next import.
    expect(await cache.get('dataset|email:ada@acme.com', Date.now())).toBeUndefined();

    // Rows imported into the open file show with no reopening (SQLite reads see the last commit).
    await importPeople(path, 'email,name\nbob@acme.com,Bob Smith\n');
    expect((await enricher.enrichContact({ email: 'bob@acme.com' })).match?.full_name).toBe('Bob Smith');

    // Started afresh (the file removed with its -wal and -shm, then a new import): reopened.
    removeDataset();
    await importPeople(path, 'email,name\nada@acme.com,Ada King\n');
    expect((await ada()).match?.full_name).toBe('Ada King');

    // Removed: closed, and the adapter sits out again.
    removeDataset();
    expect(await watched.available()).toBe(false);
    expect((await ada()).adapters).toEqual([]);
  });

  it('a file that cannot be opened fails the start, and later counts as the adapter failing', async () => {
    writeFileSync(path, 'not a database, just text long enough to not be empty');
    await expect(watchDatasetIndex({ path })).rejects.toThrow(/cannot open the dataset index|not a database/);

    rmSync(path);
    const watched = await watch();
    const { person } = createDatasetAdapters(watched);
    const enricher = createEnricher({ adapters: [person] });
    writeFileSync(path, 'not a database, just text long enough to not be empty');
    const outcome = await enricher.enrichContact({ email: 'ada@acme.com' });
    expect(outcome.adapters).toEqual([{ adapter: 'dataset', status: 'error', cost: 0, error: 'upstream' }]);
    expect(outcome.miss).toBe('all_adapters_failed');
  });
});
