import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeCache } from '../testing/describe-cache.js';
import { createMemoryCache } from './memory.js';
import { createSqliteCache } from './sqlite.js';

const dir = mkdtempSync(join(tmpdir(), 'enrich-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

describeCache('memory', (options) => createMemoryCache(options));
describeCache('sqlite', (options) => createSqliteCache({ ...options, path: join(dir, `c${files++}.db`) }));

describe('cache specifics', () => {
  it('memory: drops the oldest stored entry beyond maxEntries', async () => {
    const cache = createMemoryCache({ maxEntries: 2 });
    const entry = { value: 'v', storedAt: 0, expiresAt: 10_000, subjects: [] };
    await cache.set('a', entry);
    await cache.set('b', entry);
    await cache.set('c', entry);
    expect(await cache.get('a', 1)).toBeUndefined();
    expect(await cache.get('c', 1)).toBeDefined();
  });

  it('sqlite: survives a reopen, and the file is private (0600)', async () => {
    const path = join(dir, 'reopen.db');
    const first = await createSqliteCache({ path });
    await first.set('k', { value: 'kept', storedAt: 0, expiresAt: 10_000, subjects: ['s'] });
    await first.close();
    const second = await createSqliteCache({ path });
    expect((await second.get('k', 1))?.value).toBe('kept');
    await second.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('refuses a bad retention limit', () => {
    expect(() => createMemoryCache({ retentionSeconds: 0 })).toThrow('retentionSeconds');
  });
});
