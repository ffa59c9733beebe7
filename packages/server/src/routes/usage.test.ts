import { afterEach, describe, expect, it } from 'vitest';
import { probeRoutes } from '../testing/probe-routes.js';
import { createTestServer, type TestServer } from '../testing/test-server.js';

describe('GET /v2/usage', () => {
  let server: TestServer;
  afterEach(async () => {
    await server?.app.close();
  });
  const get = (url: string, key: string) => server.call('GET', url, key);

  it("is the month's invoice: a line per endpoint billed on live keys, and the total", async () => {
    server = await createTestServer({ routes: [probeRoutes] });
    const { liveKey, testKey } = await server.account('pro');
    const other = await server.account('pro');
    await get('/test/verify_email_bulk?units=250', liveKey.secret);
    await get('/test/geo_ip', liveKey.secret);
    await get('/test/geo_ip', liveKey.secret);
    await get('/test/geo_ip', testKey.secret); // test keys are never billed
    await get('/test/geo_ip', other.liveKey.secret); // nor is another account's use shown
    const response = await get('/v2/usage', testKey.secret);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      month: '2026-11',
      lines: [
        { endpoint: 'geo_ip', calls: 2, units: 2 },
        { endpoint: 'verify_email_bulk', calls: 1, units: 250 },
      ],
      total: { calls: 3, units: 252 },
      allowance: 100_000,
      days: [
        {
          date: new Date(server.clock.now).toISOString().slice(0, 10),
          calls: 3,
          units: 252,
          lines: [
            { endpoint: 'geo_ip', calls: 2, units: 2 },
            { endpoint: 'verify_email_bulk', calls: 1, units: 250 },
          ],
        },
      ],
    });
    // Reading the invoice is not billed.
    expect((await get('/v2/usage', liveKey.secret)).json().total).toEqual({ calls: 3, units: 252 });

    server.clock.now = Date.UTC(2026, 11, 1, 0, 0, 0); // December: a new month starts empty
    await get('/test/geo_ip', liveKey.secret);
    expect((await get('/v2/usage', liveKey.secret)).json()).toMatchObject({
      month: '2026-12',
      total: { calls: 1, units: 1 },
    });
    expect((await get('/v2/usage?month=2026-11', liveKey.secret)).json().total).toEqual({
      calls: 3,
      units: 252,
    });
    expect((await get('/v2/usage?month=2025-01', liveKey.secret)).json()).toMatchObject({
      lines: [],
      total: { calls: 0, units: 0 },
    });
  });

  it('splits the month by UTC day, oldest first, leaving out days without billable calls', async () => {
    server = await createTestServer({ routes: [probeRoutes] });
    const { liveKey } = await server.account('pro');
    server.clock.now = Date.UTC(2026, 10, 3, 23, 59, 59);
    await get('/test/geo_ip', liveKey.secret);
    server.clock.now = Date.UTC(2026, 10, 4, 0, 0, 1);
    await get('/test/verify_email_bulk?units=7', liveKey.secret);
    await get('/test/geo_ip', liveKey.secret);
    server.clock.now = Date.UTC(2026, 10, 9, 12);
    await get('/test/geo_ip', liveKey.secret);
    const body = (await get('/v2/usage?month=2026-11', liveKey.secret)).json();
    expect(body.days).toEqual([
      { date: '2026-11-03', calls: 1, units: 1, lines: [{ endpoint: 'geo_ip', calls: 1, units: 1 }] },
      {
        date: '2026-11-04',
        calls: 2,
        units: 8,
        lines: [
          { endpoint: 'geo_ip', calls: 1, units: 1 },
          { endpoint: 'verify_email_bulk', calls: 1, units: 7 },
        ],
      },
      { date: '2026-11-09', calls: 1, units: 1, lines: [{ endpoint: 'geo_ip', calls: 1, units: 1 }] },
    ]);
    expect(body.total).toEqual({ calls: 4, units: 10 });
  });

  it('refuses a month that is not YYYY-MM, naming the parameter', async () => {
    server = await createTestServer();
    const { liveKey } = await server.account();
    for (const month of ['2026-13', '2026-1', 'november', '2026-11-01']) {
      const response = await get(`/v2/usage?month=${month}`, liveKey.secret);
      expect(response.statusCode, month).toBe(400);
      expect(response.json().error).toMatchObject({
        code: 'invalid_request',
        message: expect.stringMatching(/month/),
      });
    }
  });
});
