import { registerAjvFormats } from '@fastify/type-provider-typebox';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../testing/test-server.js';
import {
  AccountSchema,
  KeyListSchema,
  NewKeySchema,
  NewWebhookSecretSchema,
  RevokedKeySchema,
  RotatedKeySchema,
  TokenSchema,
  UsageSchema,
} from './account-schemas.js';

describe('the account routes answer what their schemas (and so the OpenAPI document) say', () => {
  let server: TestServer;
  beforeAll(() => {
    registerAjvFormats(); // date-time is checked, not assumed
  });
  afterEach(async () => {
    await server?.app.close();
  });

  it('every body of a session is valid against its declared schema, field for field', async () => {
    server = await createTestServer();
    const { liveKey, testKey } = await server.account('pro');
    const call = async (method: 'GET' | 'POST' | 'DELETE', url: string, schema: TSchema, body?: object) => {
      const response = await server.app.inject({
        method,
        url,
        headers: { 'x-api-key': liveKey.secret },
        ...(body ? { payload: body } : {}),
      });
      expect(response.statusCode, `${method} ${url}: ${response.body}`).toBeLessThan(300);
      const json = response.json();
      expect([...Value.Errors(schema, json)], `${method} ${url}`).toEqual([]);
      return json;
    };
    await call('GET', '/v2/account', AccountSchema);
    await call('GET', '/v2/usage', UsageSchema);
    await call('POST', '/v2/tokens', TokenSchema, { scopes: ['geo_ip'] });
    const key = await call('POST', '/v2/keys', NewKeySchema, { environment: 'test', name: 'n' });
    await call('GET', '/v2/keys', KeyListSchema);
    await call('POST', `/v2/keys/${key.id}/rotate`, RotatedKeySchema, { grace_seconds: 5 });
    await call('DELETE', `/v2/keys/${testKey.key.id}`, RevokedKeySchema);
    await call('POST', '/v2/account/webhook-secret/rotate', NewWebhookSecretSchema, {});
  });

  it('the OpenAPI document has each operation with its success shape, and 404 on the key id routes', async () => {
    server = await createTestServer();
    const doc = (await server.app.inject({ method: 'GET', url: '/v2/openapi.json' })).json();
    const operations: [string, string, string, string][] = [
      ['/v2/tokens', 'post', 'createToken', '201'],
      ['/v2/keys', 'get', 'listKeys', '200'],
      ['/v2/keys', 'post', 'createKey', '201'],
      ['/v2/keys/{id}/rotate', 'post', 'rotateKey', '201'],
      ['/v2/keys/{id}', 'delete', 'revokeKey', '200'],
      ['/v2/account', 'get', 'getAccount', '200'],
      ['/v2/account/webhook-secret/rotate', 'post', 'rotateWebhookSecret', '201'],
      ['/v2/usage', 'get', 'getUsage', '200'],
    ];
    for (const [path, method, operationId, status] of operations) {
      const operation = doc.paths[path]?.[method];
      expect(operation?.operationId, `${method} ${path}`).toBe(operationId);
      expect(operation.security).toEqual([{ api_key: [] }]);
      expect(operation.responses[status].content['application/json'].schema.properties).toBeDefined();
      expect(operation.responses['401'], `${method} ${path} 401`).toBeDefined();
    }
    expect(doc.paths['/v2/keys/{id}/rotate'].post.responses['404']).toBeDefined();
    // Rotations and tokens work without a body (defaults); creating a key needs one.
    for (const [path, required] of [
      ['/v2/keys/{id}/rotate', false],
      ['/v2/account/webhook-secret/rotate', false],
      ['/v2/tokens', false],
      ['/v2/keys', true],
    ] as const) {
      const body = doc.paths[path].post.requestBody;
      expect(body.required, path).toBe(required);
      expect(body.content['application/json'].schema).not.toHaveProperty('x-optional-body');
    }
    expect(doc.paths['/v2/keys/{id}'].delete.responses['404']).toBeDefined();
  });
});
