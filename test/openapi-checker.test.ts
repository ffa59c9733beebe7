import { describe, expect, it } from 'vitest';
import { OpenApiChecker } from './support/openapi.js';

// The checker every end-to-end response goes through: it must refuse what does not match, or the
// suite's "validated against the served document" would prove nothing.
const ERROR = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'request_id'],
      properties: { code: { type: 'string' }, message: { type: 'string' }, request_id: { type: 'string' } },
    },
  },
};
const json = (schema: unknown) => ({ content: { 'application/json': { schema } } });
const DOCUMENT = {
  openapi: '3.1.0',
  info: { title: 'test', version: '2.0.0' },
  components: {
    schemas: {
      Error: ERROR,
      Geo: {
        type: 'object',
        required: ['ip', 'country'],
        properties: { ip: { type: 'string' }, country: { type: ['string', 'null'] } },
      },
    },
  },
  paths: {
    '/v2/geo/{ip}': {
      get: {
        parameters: [{ name: 'ip', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': { description: 'ok', ...json({ $ref: '#/components/schemas/Geo' }) },
          '4XX': { description: 'error', ...json({ $ref: '#/components/schemas/Error' }) },
        },
      },
    },
    '/v2/geo/me': {
      get: { responses: { '200': { description: 'ok', ...json({ type: 'object', required: ['me'] }) } } },
    },
    '/v2/health': {
      get: { responses: { '200': { description: 'ok', ...json({ type: 'object' }) } } },
    },
  },
};

describe('OpenApiChecker', () => {
  it('refuses a document that is not valid OpenAPI 3.1', async () => {
    await expect(OpenApiChecker.create({ openapi: '3.1.0', paths: {} })).rejects.toThrow(/not valid/);
    await expect(OpenApiChecker.create({ ...DOCUMENT, openapi: '3.0.3' })).rejects.toThrow();
  });

  it('accepts responses as documented, through $refs and status ranges', async () => {
    const checker = await OpenApiChecker.create(DOCUMENT);
    const ok = { method: 'GET', contentType: 'application/json; charset=utf-8' };
    checker.check({ ...ok, url: '/v2/geo/8.8.8.8', status: 200, body: { ip: '8.8.8.8', country: null } });
    checker.check({
      ...ok,
      url: '/v2/geo/10.0.0.1?x=1',
      status: 400,
      body: { error: { code: 'invalid_ip', message: 'm', request_id: 'req_1' } },
    });
    // An unknown path's error answer is checked against the Error schema.
    checker.check({
      ...ok,
      url: '/v1/geo/8.8.8.8',
      status: 404,
      body: { error: { code: 'not_found', message: 'm', request_id: 'req_1' } },
    });
  });

  it('prefers a literal path over a parameter (/geo/me is not /geo/{ip})', async () => {
    const checker = await OpenApiChecker.create(DOCUMENT);
    expect(checker.templateFor('/v2/geo/me')).toBe('/v2/geo/me');
    expect(checker.templateFor('/v2/geo/1.2.3.4')).toBe('/v2/geo/{ip}');
    expect(checker.templateFor('/v2/geo/1.2.3.4/extra')).toBeNull();
  });

  it('refuses a wrong body, an undeclared status, a wrong content type, a success on an unknown path', async () => {
    const checker = await OpenApiChecker.create(DOCUMENT);
    const base = { method: 'GET', contentType: 'application/json' };
    expect(() => checker.check({ ...base, url: '/v2/geo/8.8.8.8', status: 200, body: { ip: 8 } })).toThrow(
      /body does not match the document/,
    );
    expect(() => checker.check({ ...base, url: '/v2/health', status: 503, body: {} })).toThrow(
      /declares no 503 response/,
    );
    expect(() =>
      checker.check({ ...base, contentType: 'text/html', url: '/v2/health', status: 200, body: undefined }),
    ).toThrow(/content type "text\/html"/);
    expect(() => checker.check({ ...base, url: '/v2/nothing', status: 200, body: {} })).toThrow(
      /not in the document/,
    );
    expect(() =>
      checker.check({ ...base, url: '/v1/geo/1.1.1.1', status: 404, body: { message: 'Not Found' } }),
    ).toThrow(/body does not match/);
  });

  it('refuses a property the document does not declare (answers are not filtered by a serializer)', async () => {
    const checker = await OpenApiChecker.create(DOCUMENT);
    const base = { method: 'GET', contentType: 'application/json', url: '/v2/geo/8.8.8.8', status: 200 };
    expect(() =>
      checker.check({ ...base, body: { ip: '8.8.8.8', country: 'DE', key_hash: 'ab12' } }),
    ).toThrow(/must NOT have unevaluated properties/);
    const error = { code: 'not_found', message: 'm', request_id: 'req_1', stack: 'at x' };
    expect(() => checker.check({ ...base, url: '/v1/geo/1.1.1.1', status: 404, body: { error } })).toThrow(
      /body does not match/,
    );
    // A schema that declares no properties stays open.
    checker.check({ ...base, url: '/v2/health', body: { anything: 1 } });
  });
});
