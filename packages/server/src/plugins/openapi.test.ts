import { afterEach, describe, expect, it } from 'vitest';
import { probeRoutes } from '../testing/probe-routes.js';
import { createTestServer, type TestServer } from '../testing/test-server.js';

describe('openapi plugin', () => {
  let server: TestServer;
  afterEach(async () => {
    await server?.app.close();
  });

  it('GET /v2/openapi.json (no key) serves OpenAPI 3.1 with version 2.x.y, security and the hook-given errors', async () => {
    server = await createTestServer();
    const response = await server.app.inject({ method: 'GET', url: '/v2/openapi.json' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-request-id']).toMatch(/^req_/);
    const doc = response.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toMatch(/^2\.\d+\.\d+$/);
    expect(doc.components.securitySchemes.api_key).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'X-API-Key',
    });
    expect(doc.paths['/v2/openapi.json']).toBeUndefined();
    const health = doc.paths['/v2/health'].get;
    expect(health.operationId).toBe('getHealth');
    // No key needed (`{}`), and one is read if sent (the owner's probing section).
    expect(health.security).toEqual([{}, { api_key: [] }]);
    expect(Object.keys(health.responses).sort()).toEqual(['200', '400', '429', '500', '503']);
    expect(Object.keys(health.responses['200'].headers).sort()).toEqual([
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'X-Request-Id',
    ]);
    expect(doc.servers).toEqual([{ url: '/', description: 'The server that serves this document' }]);
    expect(health.responses['200'].headers['X-Request-Id'].schema).toEqual({ type: 'string' });
    expect(
      health.responses['500'].content['application/json'].schema.properties.error.properties.code.enum,
    ).toContain('internal_error');
  });

  it('an authenticated, billable, plan-gated route documents 401, 402, 403, 429 (with Retry-After) and the limit headers', async () => {
    server = await createTestServer({ routes: [probeRoutes] });
    const doc = (await server.app.inject({ method: 'GET', url: '/v2/openapi.json' })).json();
    const op = doc.paths['/test/verify_email'].get;
    expect(op.security).toEqual([{ api_key: [] }]);
    expect(Object.keys(op.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '402',
      '403',
      '429',
      '500',
      '503',
    ]);
    expect(op.responses['402'].description).toBe('`quota_exceeded`: Monthly call allowance used up');
    expect(op.responses['429'].headers['Retry-After']).toBeDefined();
    expect(Object.keys(op.responses['200'].headers)).toEqual(
      expect.arrayContaining([
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'X-RateLimit-Reset',
        'X-Quota-Limit',
      ]),
    );
    const usage = doc.paths['/test/usage_get'].get;
    expect(Object.keys(usage.responses).sort()).toEqual(['200', '400', '401', '429', '500', '503']);
  });
});
