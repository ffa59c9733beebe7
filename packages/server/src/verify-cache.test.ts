import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { EmailVerificationResult } from '@svc/core';
import { createScratchDatabase, POSTGRES, scratchName, serviceUrl } from '@svc/testkit';
import { tempDirPerTest } from '@svc/testkit/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveServerOptions } from './options.js';
import { openVerifyCache, VERIFY_CACHE_DB_FILE } from './verify-cache.js';

const postgresUrl = await serviceUrl(POSTGRES, "svc serve's PostgreSQL result cache");

const result = { state: 'deliverable', email: 'a@x.test' } as EmailVerificationResult;
const key = { namespace: 'acct_a', address: 'a@x.test', variant: 'probe=1;disposable=1' };

const dir = tempDirPerTest('svc-verify-cache-');

describe('openVerifyCache (verifyCache.store)', () => {
  it('defaults to a SQLite file in the data dir; memory and off as configured', async () => {
    const cache = await openVerifyCache(resolveServerOptions({ dataDir: dir() }));
    expect(cache).not.toBe(false);
    if (!cache) return;
    await cache.set([{ key, result }], 0);
    await cache.close();
    expect((await stat(join(dir(), VERIFY_CACHE_DB_FILE))).mode & 0o777).toBe(0o600);
    expect(await openVerifyCache(resolveServerOptions({ verifyCache: { store: 'off' } }))).toBe(false);
    const memory = await openVerifyCache(resolveServerOptions({ verifyCache: { store: 'memory' } }));
    expect(memory && (await memory.get([key], 1))).toEqual([undefined]);
  });

  it('refuses postgres without databaseUrl, naming both', async () => {
    await expect(
      openVerifyCache(resolveServerOptions({ verifyCache: { store: 'postgres' } })),
    ).rejects.toThrow('verifyCache.store postgres needs databaseUrl');
  });

  describe.skipIf(!postgresUrl)('with databaseUrl', () => {
    let databaseUrl = '';
    let dropDatabase: (() => Promise<void>) | undefined;
    beforeAll(async () => {
      ({ url: databaseUrl, drop: dropDatabase } = await createScratchDatabase(
        postgresUrl as string,
        scratchName('svc_t_vcache'),
      ));
    });
    afterAll(async () => {
      await dropDatabase?.();
    });

    it('uses the database by default: two processes (machines) share what one stored', async () => {
      const options = resolveServerOptions({ dataDir: join(dir(), 'pg'), databaseUrl });
      expect(options.verifyCache.store).toBe('postgres');
      const first = await openVerifyCache(options);
      const second = await openVerifyCache(options);
      if (!first || !second) throw new Error('expected two caches');
      try {
        await first.set([{ key, result }], 1000);
        expect((await second.get([key], 2000))[0]).toMatchObject({ cachedAt: 1000, result });
      } finally {
        await first.close();
        await second.close();
      }
    });
  });
});
