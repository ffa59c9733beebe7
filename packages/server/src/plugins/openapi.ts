import fastifySwagger from '@fastify/swagger';
import { ERROR_TABLE, ErrorBodySchema, type ErrorCode } from '@svc/core';
import { ENDPOINTS, type EndpointSpec, isEndpointId } from '../endpoints.js';
import { API_VERSION } from '../version.js';
import { globalPlugin } from './global-plugin.js';

/** The path the document is served at. */
export const OPENAPI_PATH = '/v2/openapi.json';

const header = (description: string, type: 'string' | 'integer' = 'integer') => ({ type, description });

/** Headers on every response: the request id and the rate limit (the account's bucket, or the client address's without an account). */
const COMMON_HEADERS = {
  'X-Request-Id': header('The request id (`req_…`), also in error bodies', 'string'),
  'X-RateLimit-Limit': header(
    "The bucket's capacity: the plan's burst, or without a key the client address's (limits.unauthenticatedBurst)",
  ),
  'X-RateLimit-Remaining': header('Whole requests the bucket allows right now'),
  'X-RateLimit-Reset': header('Seconds until the bucket is full again'),
};
/** Headers on every response to an authenticated request besides those. */
const LIMIT_HEADERS = {
  'X-Quota-Limit': header("The month's allowance in units (absent on unlimited plans)"),
  'X-Quota-Remaining': header('Units left this month, UTC (absent on unlimited plans)'),
};

/** The error statuses every route of a kind can answer, with their codes. */
function errorCodes(spec: EndpointSpec | null): ErrorCode[] {
  // Every request is rate-limited: by its account, or without one by its client address.
  const codes: ErrorCode[] = ['invalid_request', 'rate_limited', 'internal_error', 'upstream_timeout'];
  if (spec && spec.auth !== 'none') codes.push('invalid_api_key');
  if (spec?.planGated) codes.push('endpoint_not_in_plan');
  if (spec?.billable) codes.push('quota_exceeded');
  return codes;
}

type Schema = Record<string, unknown>;

/**
 * Adds what the hooks do to a route's documented shape: the `X-API-Key` security requirement,
 * the error responses auth, limits and the error plugin can give (the spec body), and the
 * headers on every response. Routes declare only their own success and specific error answers.
 */
function documentRoute(schema: Schema | undefined, endpoint: unknown): Schema {
  const spec = isEndpointId(endpoint) ? ENDPOINTS[endpoint] : null;
  const out: Schema = { ...schema };
  const responses: Record<string, Schema> = { ...((schema?.response as Record<string, Schema>) ?? {}) };
  const headers = spec && spec.auth !== 'none' ? { ...COMMON_HEADERS, ...LIMIT_HEADERS } : COMMON_HEADERS;
  // A route that declares no success shape still has one (swagger's default, kept).
  if (!Object.keys(responses).some((status) => status.startsWith('2')))
    responses['200'] = { description: 'Success' };
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodes(spec)) {
    const { status } = ERROR_TABLE[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, codes] of byStatus) {
    if (responses[status]) continue;
    responses[status] = {
      ...ErrorBodySchema,
      description: codes.map((code) => `\`${code}\`: ${ERROR_TABLE[code].meaning}`).join('; '),
    };
  }
  for (const [status, response] of Object.entries(responses)) {
    const extra = status === '429' ? { 'Retry-After': header('Seconds to wait before retrying') } : {};
    responses[status] = {
      ...response,
      headers: { ...headers, ...extra, ...((response.headers as Schema) ?? {}) },
    };
  }
  out.response = responses;
  // A key-less operation says so (`{}`: no requirement), and that a key is read if sent (health's owner section).
  out.security = spec && spec.auth !== 'none' ? [{ api_key: [] }] : [{}, { api_key: [] }];
  return out;
}

/** Marks a body schema as optional (a POST that works without a body), for the document. */
export const OPTIONAL_BODY = 'x-optional-body';

/**
 * @fastify/swagger marks every request body required; a route whose body schema carries
 * `OPTIONAL_BODY` accepts none (it reads it as `{}`), so its body is documented as optional.
 */
function markOptionalBodies(doc: Schema): Schema {
  for (const operations of Object.values((doc.paths ?? {}) as Record<string, Record<string, Schema>>)) {
    for (const operation of Object.values(operations)) {
      const body = operation.requestBody as {
        required?: boolean;
        content?: Record<string, { schema?: Schema }>;
      };
      const media = Object.values(body?.content ?? {});
      if (!media.some((item) => item.schema?.[OPTIONAL_BODY])) continue;
      body.required = false;
      // A copy without the marker: the schema object is the route's own, maybe shared by routes.
      for (const item of media) {
        if (!item.schema) continue;
        const { [OPTIONAL_BODY]: _marker, ...schema } = item.schema;
        item.schema = schema;
      }
    }
  }
  return doc;
}

/**
 * The OpenAPI 3.1 document of the routes registered after this plugin, generated from their
 * TypeBox schemas (no second copy of the API's shape), served at GET /v2/openapi.json (no key).
 * Register it before the routes.
 */
export const openapiPlugin = globalPlugin('svc-openapi', async (app) => {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'svc API',
        version: API_VERSION,
        description:
          'Email verification, IP geolocation and batch jobs under one API key. Every error has the body `{ "error": { "code", "message", "request_id" } }`.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      // Relative: the server that serves this document (OpenAPI 3.1 §4.8.5).
      servers: [{ url: '/', description: 'The server that serves this document' }],
      components: {
        securitySchemes: {
          api_key: {
            type: 'apiKey',
            in: 'header',
            name: 'X-API-Key',
            description: 'An API key (`sk_live_…`, `sk_test_…`) or a token from POST /v2/tokens (`tok_…`)',
          },
        },
      },
    },
    transform: ({ schema, url, route }) => ({
      schema: documentRoute(schema as Schema | undefined, route.config?.endpoint) as typeof schema,
      url,
    }),
    transformObject: (document) =>
      'openapiObject' in document
        ? markOptionalBodies(document.openapiObject as Schema)
        : document.swaggerObject,
  });
  app.get(OPENAPI_PATH, { config: { endpoint: 'openapi' }, schema: { hide: true } as Schema }, async () =>
    app.swagger(),
  );
});
