import { type ErrorCode, ServiceError } from '@svc/core';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerContext } from '../context.js';
import { delayAnswerUnread, lingerOnClose } from '../http-server.js';
import { globalPlugin } from './global-plugin.js';
import { unreadBodyCloseFor } from './refused-bodies.js';
import { generateRequestId } from './request-id.js';
import { type ValidationIssue, validationMessage } from './validation-message.js';

/** What the API says for any failure it did not foresee; the real cause goes to the log only. */
export const INTERNAL_MESSAGE = 'the server failed to answer this request; it is safe to retry';

type FrameworkError = Partial<FastifyError> & {
  validation?: ValidationIssue[];
  validationContext?: string;
};

/** The code for a status a foreign error (a plugin's, Node's) carries; 4xx default to invalid_request. */
function codeForStatus(status: number): ErrorCode {
  if (status === 401) return 'invalid_api_key';
  if (status === 402) return 'quota_exceeded';
  if (status === 403) return 'endpoint_not_in_plan';
  if (status === 404) return 'not_found';
  if (status === 429) return 'rate_limited';
  if (status === 503) return 'upstream_timeout';
  return status >= 400 && status < 500 ? 'invalid_request' : 'internal_error';
}

/**
 * Turns anything a handler, hook, parser or validator threw into the ServiceError the client
 * sees. ServiceErrors pass as they are; Fastify's own errors become `invalid_request` with a
 * message saying what to fix; anything else is `internal_error` (its text never reaches the client).
 */
export function toServiceError(error: unknown, request?: FastifyRequest): ServiceError {
  if (ServiceError.is(error)) return error;
  const e = (typeof error === 'object' && error !== null ? error : {}) as FrameworkError;
  if (Array.isArray(e.validation)) {
    return new ServiceError('invalid_request', validationMessage(e.validation, e.validationContext), {
      cause: error,
    });
  }
  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE': {
      const type = request?.headers['content-type'];
      return new ServiceError(
        'invalid_request',
        `Content-Type ${type ? JSON.stringify(type) : '(none)'} is not accepted here; send application/json`,
        { cause: error },
      );
    }
    case 'FST_ERR_CTP_BODY_TOO_LARGE': {
      const limit = request?.routeOptions.bodyLimit;
      return new ServiceError(
        'invalid_request',
        limit ? `the body is larger than this endpoint's limit of ${limit} bytes` : 'the body is too large',
        { cause: error },
      );
    }
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ServiceError('invalid_request', 'the body is empty; send a JSON object', { cause: error });
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ServiceError('invalid_request', `malformed JSON body: ${e.message ?? 'cannot parse'}`, {
        cause: error,
      });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ServiceError('invalid_request', 'the body is not as long as its Content-Length says', {
        cause: error,
      });
    case 'FST_ERR_BAD_URL':
      return new ServiceError('invalid_request', 'the URL is malformed (bad percent-encoding)', {
        cause: error,
      });
  }
  const status = typeof e.statusCode === 'number' ? e.statusCode : 500;
  // Fastify's JSON parser throws a SyntaxError with status 400.
  if (status === 400 && error instanceof SyntaxError) {
    return new ServiceError('invalid_request', `malformed JSON body: ${error.message}`, { cause: error });
  }
  const code = codeForStatus(status);
  if (code === 'internal_error')
    return new ServiceError('internal_error', INTERNAL_MESSAGE, { cause: error });
  return new ServiceError(code, e.message || `request refused (${status})`, { cause: error });
}

/**
 * Bodies up to this many bytes, when an error is answered before they are read, are read and
 * dropped by Node and the connection kept (a 401 or 429 to an ordinary request); longer or
 * chunked ones close it.
 */
export const KEEP_ALIVE_UNREAD_BODY_BYTES = 65_536;

/** Whether the request declares a body longer than KEEP_ALIVE_UNREAD_BODY_BYTES, or one of unknown length. */
function declaresLongBody(request: FastifyRequest): boolean {
  const headers = request.raw.headers;
  return (
    headers['transfer-encoding'] !== undefined ||
    Number(headers['content-length'] ?? 0) > KEEP_ALIVE_UNREAD_BODY_BYTES
  );
}

/** Whether answering now leaves the request's body unread and so closes the connection (`sendError`). */
function closesWithUnreadBody(reply: FastifyReply): boolean {
  const request = reply.request;
  return !request.raw.complete && (reply.getHeader('connection') === 'close' || declaresLongBody(request));
}

/** Whether the request's refused body is past its budget (`hold`); not when the budget cannot be asked. */
async function pastBodyBudget(svc: ServerContext, request: FastifyRequest): Promise<boolean> {
  try {
    return (await unreadBodyCloseFor(svc, request)) === 'hold';
  } catch {
    return false;
  }
}

/**
 * Sends the spec's error body with its status, `X-Request-Id` and, when given, `Retry-After`.
 * An error answered before a long request body has been read (refused as too large, of an unread
 * type, too late, or by auth or a limit before a body over KEEP_ALIVE_UNREAD_BODY_BYTES) closes the
 * connection: gently, the rest drained, up to `limits.drainedBodiesPerMinute` per account and
 * address, past that without reading the rest (`lingerOnClose`, `chooseUnreadBodyClose`).
 */
export function sendError(reply: FastifyReply, error: ServiceError): FastifyReply {
  const request = reply.request;
  if (closesWithUnreadBody(reply)) {
    reply.header('connection', 'close');
    lingerOnClose(request.raw, () => unreadBodyCloseFor(reply.server.svc, request));
  }
  if (!request.id?.startsWith('req_')) request.id = generateRequestId();
  reply.header('x-request-id', request.id);
  if (error.retryAfterSeconds !== undefined)
    reply.header('retry-after', String(Math.max(1, Math.ceil(error.retryAfterSeconds))));
  return reply.code(error.status).type('application/json; charset=utf-8').send(error.toBody(request.id));
}

/** Methods routed by path pattern, to tell "no such endpoint" from "not with this method". */
interface KnownRoute {
  pattern: RegExp;
  methods: Set<string>;
}

function patternOf(url: string): RegExp {
  const source = url
    .split('/')
    .map((segment) => {
      if (segment === '*') return '.*';
      if (segment.startsWith(':')) return '[^/]+';
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return new RegExp(`^${source}/?$`);
}

/** The not-found message: where the API is, and what this path does answer to if anything. */
function notFoundMessage(method: string, path: string, allowed: string[]): string {
  if (allowed.length > 0) return `${path} does not answer ${method}; use ${allowed.join(' or ')}`;
  if (path === '/v1' || path.startsWith('/v1/')) {
    return `API v1 is retired; this server serves v2 under /v2 (GET /v2/openapi.json lists its endpoints)`;
  }
  if (path === '/v2' || path.startsWith('/v2/')) {
    return `${method} ${path} is not an endpoint of the API; GET /v2/openapi.json lists them`;
  }
  return `nothing at ${path}; the API is under /v2 (GET /v2/openapi.json lists its endpoints)`;
}

/**
 * Every failure becomes the spec's body `{ error: { code, message, request_id } }` with the
 * code's status: ServiceErrors from handlers, validation (the message names the field),
 * malformed JSON, a wrong Content-Type, an oversized body, unknown routes (404 `not_found`
 * pointing to /v2, also for /v1/…), a wrong method (404 naming the methods the path answers, with
 * `Allow`), and anything unexpected (500 `internal_error`, logged with its cause and stack, which
 * the client never sees). Register it first, so it sees every route.
 */
export const errorsPlugin = globalPlugin('svc-errors', async (app) => {
  const routes = new Map<string, KnownRoute>();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const known = routes.get(route.url) ?? { pattern: patternOf(route.url), methods: new Set<string>() };
    for (const method of methods) if (method !== 'HEAD' && method !== 'OPTIONS') known.methods.add(method);
    routes.set(route.url, known);
  });

  app.setErrorHandler(async (error, request, reply) => {
    const failure = toServiceError(error, request);
    if (failure.status >= 500) {
      request.log.error({ err: error }, `${failure.code}: ${(error as Error)?.message ?? String(error)}`);
    } else {
      request.log.info({ code: failure.code }, failure.message);
    }
    // Past the client's budget of refused bodies, the answer waits, nothing more read meanwhile
    // (`delayAnswerUnread`): a client sending them back to back is slowed, not served at once.
    if (closesWithUnreadBody(reply) && (await pastBodyBudget(app.svc, request))) {
      await delayAnswerUnread(request.raw);
      if (reply.sent) return reply;
    }
    return sendError(reply, failure);
  });

  app.setNotFoundHandler(async (request, reply) => {
    const path = (request.raw.url ?? '/').split('?')[0] ?? '/';
    const allowed = new Set<string>();
    for (const route of routes.values()) {
      if (route.pattern.test(path)) for (const method of route.methods) allowed.add(method);
    }
    allowed.delete(request.method);
    const methods = [...allowed].sort();
    if (methods.length > 0) reply.header('Allow', methods.join(', '));
    return sendError(reply, new ServiceError('not_found', notFoundMessage(request.method, path, methods)));
  });
});
