import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { specError } from '../testing/spec-error.js';
import { createTestServer, type TestServer } from '../testing/test-server.js';

// MaxMind's City test database (the test server's geo data) has 81.2.69.142 in London.
const LONDON = '81.2.69.142';

let server: TestServer;
afterEach(async () => {
  await server?.app.close();
});

async function start(trustedProxies: string[] = []) {
  server = await createTestServer({ options: { trustedProxies } });
  return server.account('free');
}

function get(
  url: string,
  key: string,
  extra: { remoteAddress?: string; headers?: Record<string, string> } = {},
) {
  return server.app.inject({
    method: 'GET',
    url,
    headers: { 'x-api-key': key, ...extra.headers },
    ...(extra.remoteAddress ? { remoteAddress: extra.remoteAddress } : {}),
  });
}

describe('GET /v2/geo/{ip}', () => {
  it('answers every spec field (null where the data has none), billing live keys only', async () => {
    const keys = await start();
    const response = await get(`/v2/geo/${LONDON}`, keys.liveKey.secret);
    expect(response.statusCode).toBe(200);
    const body = JSON.parse(response.body);
    expect(body).toMatchObject({
      ip: LONDON,
      country: 'GB',
      city: 'London',
      continent: 'EU',
      is_proxy: false,
      is_vpn: false,
    });
    for (const field of [
      'country_name',
      'region',
      'region_code',
      'latitude',
      'longitude',
      'timezone',
      'asn',
      'org',
    ]) {
      expect(body, field).toHaveProperty(field);
    }
    expect(body.network).toBe('81.2.69.142/31');
    // Additions of ours survive the response schema (the serializer drops undeclared fields).
    expect(body.sources).toMatchObject({ city: 'geoip2-city' });
    expect(await server.store.usedUnits(keys.account.id, '2026-11')).toBe(1);
    // Test keys read the same local data (no network either way) and are never billed.
    const sandboxed = await get(`/v2/geo/${LONDON}`, keys.testKey.secret);
    expect(JSON.parse(sandboxed.body)).toEqual(body);
    expect(await server.store.usedUnits(keys.account.id, '2026-11')).toBe(1);
  });

  it('canonicalises IPv6 and refuses private, reserved and malformed addresses with 400 invalid_ip', async () => {
    const keys = await start();
    const mapped = await get('/v2/geo/::ffff:81.2.69.142', keys.liveKey.secret);
    expect(JSON.parse(mapped.body)).toMatchObject({ ip: LONDON, city: 'London' });
    expect(specError(await get('/v2/geo/10.0.0.1', keys.liveKey.secret), 400, 'invalid_ip')).toBe(
      '10.0.0.1 is in 10.0.0.0/8, private-use (RFC 1918)',
    );
    expect(specError(await get('/v2/geo/fe80::1', keys.liveKey.secret), 400, 'invalid_ip')).toMatch(
      /link-local/i,
    );
    expect(specError(await get('/v2/geo/300.1.1.1', keys.liveKey.secret), 400, 'invalid_ip')).toMatch(/300/);
    expect(await server.store.usedUnits(keys.account.id, '2026-11')).toBe(1);
  });
});

describe('GET /v2/geo/me', () => {
  it('locates a public peer', async () => {
    const keys = await start();
    const response = await get('/v2/geo/me', keys.liveKey.secret, { remoteAddress: LONDON });
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ ip: LONDON, city: 'London' });
  });

  it('over a real socket from loopback: 400 invalid_ip saying which address it saw and what to do', async () => {
    const keys = await start();
    await server.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = server.app.server.address() as AddressInfo;
    // X-Forwarded-For from a peer that is not a trusted proxy is anyone's claim: ignored.
    const response = await fetch(`http://127.0.0.1:${port}/v2/geo/me`, {
      headers: { 'x-api-key': keys.liveKey.secret, 'x-forwarded-for': LONDON },
    });
    const message = specError(
      {
        statusCode: response.status,
        body: await response.text(),
        headers: Object.fromEntries(response.headers),
      },
      400,
      'invalid_ip',
    );
    expect(message).toMatch(
      /came from 127\.0\.0\.1 \(the TCP peer of this connection\), which is not public/,
    );
    expect(message).toMatch(/127\.0\.0\.0\/8, loopback/);
    expect(message).toMatch(/trustedProxies/);
  });

  it('believes X-Forwarded-For from a trusted proxy, and says so when that address is private', async () => {
    const keys = await start(['127.0.0.1']);
    await server.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = server.app.server.address() as AddressInfo;
    const located = await fetch(`http://127.0.0.1:${port}/v2/geo/me`, {
      headers: { 'x-api-key': keys.liveKey.secret, 'x-forwarded-for': `203.0.113.9, ${LONDON}` },
    });
    expect(located.status).toBe(200);
    expect(await located.json()).toMatchObject({ ip: LONDON, city: 'London' });
    const privateClient = await get('/v2/geo/me', keys.liveKey.secret, {
      remoteAddress: '127.0.0.1',
      headers: { 'x-forwarded-for': '192.168.1.20' },
    });
    expect(specError(privateClient, 400, 'invalid_ip')).toMatch(
      /came from 192\.168\.1\.20 \(from X-Forwarded-For, set by a trusted proxy\).*RFC 1918/,
    );
  });
});
