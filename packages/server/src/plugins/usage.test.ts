import { afterEach, describe, expect, it } from 'vitest';
import type { ControlPlaneStore } from '../control-plane/store.js';
import { createMemoryControlPlaneStore } from '../control-plane/stores/memory.js';
import { createWriteBehindUsageStore } from '../control-plane/write-behind-usage.js';
import { probeRoutes } from '../testing/probe-routes.js';
import { createTestServer, type TestServer } from '../testing/test-server.js';

describe('usage plugin', () => {
  let server: TestServer;
  afterEach(async () => {
    await server?.app.close();
  });
  const get = (url: string, key: string) => server.call('GET', url, key);

  // The write-behind store answers through recordUsageSync, the others through recordUsage.
  const stores: [string, () => ControlPlaneStore][] = [
    ['a store whose usage is not written behind', createMemoryControlPlaneStore],
    [
      'the write-behind store (recordUsageSync)',
      () => createWriteBehindUsageStore(createMemoryControlPlaneStore()),
    ],
  ];
  it.each(stores)(
    'bills live keys per billable 2xx call: 1 unit, or billableUnits; errors, 0 units and test keys bill nothing (%s)',
    async (_name, makeStore) => {
      server = await createTestServer({ routes: [probeRoutes], controlPlane: makeStore() });
      const { account, liveKey, testKey } = await server.account('pro');
      await get('/test/geo_ip', liveKey.secret);
      await get('/test/geo_ip', liveKey.secret);
      const bulk = await get('/test/verify_email_bulk?units=250', liveKey.secret);
      expect(bulk.headers).toMatchObject({
        'x-quota-limit': '100000',
        'x-quota-remaining': String(100_000 - 252),
      });
      await get('/test/verify_email?status=204', liveKey.secret); // a 204 (no match) is billable
      await get('/test/verify_email?status=422', liveKey.secret);
      await get('/test/verify_email?units=0', liveKey.secret);
      await get('/test/usage_get', liveKey.secret); // not billable
      await get('/test/geo_ip', testKey.secret);
      expect(await server.store.usage(account.id, '2026-11')).toEqual([
        { endpoint: 'geo_ip', calls: 2, units: 2 },
        { endpoint: 'verify_email', calls: 1, units: 1 },
        { endpoint: 'verify_email_bulk', calls: 1, units: 250 },
      ]);
    },
  );

  it('a call whose usage cannot be recorded is not served: 500 internal_error instead of the result', async () => {
    const memory = createMemoryControlPlaneStore();
    let failing = false;
    const store: ControlPlaneStore = {
      ...memory,
      recordUsage: (...args) =>
        failing ? Promise.reject(new Error('disk full')) : memory.recordUsage(...args),
    };
    server = await createTestServer({ routes: [probeRoutes], controlPlane: store });
    const { account, liveKey } = await server.account('pro');
    failing = true;
    const response = await get('/test/geo_ip', liveKey.secret);
    expect(response.statusCode).toBe(500);
    expect(response.json().error.code).toBe('internal_error');
    expect(response.body).not.toContain(account.id);
    failing = false;
    expect((await get('/test/geo_ip', liveKey.secret)).statusCode).toBe(200);
    expect(await memory.usage(account.id, '2026-11')).toEqual([{ endpoint: 'geo_ip', calls: 1, units: 1 }]);
  });
});
