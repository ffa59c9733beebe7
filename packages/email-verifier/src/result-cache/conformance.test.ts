import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeResultCache, sampleResult } from '../testing/describe-result-cache.js';
import { createMemoryResultCache } from './memory.js';
import { createSqliteResultCache } from './sqlite.js';

const dir = mkdtempSync(join(tmpdir(), 'email-result-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

describeResultCache('memory', (options) => createMemoryResultCache(options));
describeResultCache('sqlite', (options) =>
  createSqliteResultCache({ ...options, path: join(dir, `c${files++}.db`) }),
);

const key = (address: string) => ({ namespace: '', address, variant: 'probe=1;disposable=1' });

describe('result cache specifics', () => {
  it('memory: drops the least recently used address beyond maxEntries', async () => {
    const cache = createMemoryResultCache({ maxEntries: 2 });
    await cache.set([{ key: key('a@x.com'), result: sampleResult('deliverable') }], 0);
    await cache.set([{ key: key('b@x.com'), result: sampleResult('deliverable') }], 0);
    await cache.get([key('a@x.com')], 1); // a is now the most recently used
    await cache.set([{ key: key('c@x.com'), result: sampleResult('deliverable') }], 2);
    expect((await cache.get([key('a@x.com'), key('b@x.com'), key('c@x.com')], 3)).map(Boolean)).toEqual([
      true,
      false,
      true,
    ]);
  });

  it('sqlite: survives a reopen, the file is private (0600), and pruning keeps maxEntries', async () => {
    const path = join(dir, 'reopen.db');
    const first = await createSqliteResultCache({ path, maxEntries: 3, pruneEvery: 1 });
    await first.set([{ key: key('kept@x.com'), result: sampleResult('undeliverable') }], 0);
    await first.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const second = await createSqliteResultCache({ path, maxEntries: 3, pruneEvery: 1 });
    expect((await second.get([key('kept@x.com')], 1))[0]?.result.state).toBe('undeliverable');
    // Unknowns expire first, so they are the first to go when the file is over its bound.
    for (const name of ['u1', 'u2', 'u3']) {
      await second.set([{ key: key(`${name}@x.com`), result: sampleResult('unknown') }], 10);
    }
    const found = await second.get(
      [key('kept@x.com'), key('u1@x.com'), key('u2@x.com'), key('u3@x.com')],
      11,
    );
    expect(found.filter(Boolean)).toHaveLength(3);
    expect(found[0]).toBeDefined();
    await second.close();
  });

  it('sqlite: names the file when it cannot be opened', async () => {
    const driver = (() => {
      throw new Error('not here');
    }) as unknown as Parameters<typeof createSqliteResultCache>[0]['driver'];
    await expect(createSqliteResultCache({ path: join(dir, 'x.db'), driver })).rejects.toThrow(
      'cannot open the result cache',
    );
  });
});
