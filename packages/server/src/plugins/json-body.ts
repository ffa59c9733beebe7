import type { Readable } from 'node:stream';
import { ServiceError } from '@svc/core';
import fastify, { type FastifyContextConfig, type FastifyRequest } from 'fastify';
import { ENDPOINTS, type EndpointId, type EndpointSpec } from '../endpoints.js';
import { globalPlugin } from './global-plugin.js';
import { JsonValueCounter } from './json-value-counter.js';
import { routeConfigOf } from './route-config.js';

/** Bytes of the JSON body of an endpoint without a list: a verification with its options is a few hundred. */
export const SMALL_JSON_BODY_BYTES = 16_384;
/** Bytes per entry of a list endpoint's longest list: the longest address (254 characters) quoted, with its comma. */
export const LIST_ENTRY_BYTES = 257;
/** JSON values (objects, arrays, members and items) a body may hold besides its list's entries. */
export const SMALL_JSON_VALUES = 256;

/** Past this many bytes a body's work is spread over turns of the event loop (`readJsonBody`). */
export const YIELDING_BODY_BYTES = 65_536;

/** A content-type parser's callback. */
type ParserDone = (error: Error | null, body?: unknown) => void;

/** What one endpoint's JSON body may be. */
export interface JsonBodyLimits {
  /** Bytes. */
  bytes: number;
  /** Values: objects and arrays, and the members and items between their commas. */
  values: number;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set by the json-body plugin from the route's endpoint. */
    jsonBody?: JsonBodyLimits;
  }
}

/**
 * The JSON body limits of an endpoint, from ENDPOINTS: 16 KiB and 256 values, and for an
 * endpoint that takes a list (`listItems`) 257 bytes and one value more per entry, e.g. 2.6 MB
 * and 10,256 values for bulk verification; never more bytes than `ceiling`
 * (`limits.jsonBodyBytes`).
 */
export function jsonBodyLimits(endpoint: EndpointId | undefined, ceiling: number): JsonBodyLimits {
  const spec: EndpointSpec | undefined = endpoint ? ENDPOINTS[endpoint] : undefined;
  const items = spec?.listItems ?? 0;
  return {
    bytes: Math.min(ceiling, SMALL_JSON_BODY_BYTES + items * LIST_ENTRY_BYTES),
    values: SMALL_JSON_VALUES + items,
  };
}

/** The 400 for a body larger than its endpoint's limit. */
function tooLarge(limits: JsonBodyLimits): ServiceError {
  return new ServiceError(
    'invalid_request',
    `the body is larger than this endpoint's limit of ${limits.bytes} bytes`,
  );
}

/** The 400 for a body holding more values than its endpoint's limit. */
function tooManyValues(limits: JsonBodyLimits): ServiceError {
  return new ServiceError(
    'invalid_request',
    `the JSON body holds more than this endpoint's limit of ${limits.values} values (objects, arrays, their members and items)`,
  );
}

/**
 * Reads a JSON body within `limits` and hands its text to `parse`. A `Content-Length` over the
 * byte limit is refused before anything is read; otherwise each chunk is measured and its values
 * counted (`JsonValueCounter`) as it arrives, and the body is refused at the chunk that crosses
 * either limit, before the rest has arrived: the rest is never kept, decoded or parsed (the error
 * closes the connection; what the client still sends is read and dropped, `lingerOnClose`). Only a
 * body within both limits is joined, decoded and parsed.
 * `payload` is the request, or the decompressing stream of a body sent with `Content-Encoding`,
 * whose encoded length counts against the byte limit too.
 */
export function readJsonBody(
  request: FastifyRequest,
  payload: Readable & { receivedEncodedLength?: number },
  limits: JsonBodyLimits,
  parse: (text: string, done: ParserDone) => void,
  done: ParserDone,
): void {
  const declared = Number(request.headers['content-length']);
  if (declared > limits.bytes) {
    done(tooLarge(limits));
    return;
  }
  const counter = new JsonValueCounter(limits.values);
  const chunks: Buffer[] = [];
  let received = 0;
  const detach = () => {
    payload.off('data', onData);
    payload.off('end', onEnd);
    payload.off('error', onError);
  };
  function onData(chunk: Buffer | string) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    received += bytes.length;
    const refusal =
      received > limits.bytes || (payload.receivedEncodedLength ?? 0) > limits.bytes
        ? tooLarge(limits)
        : counter.write(bytes)
          ? tooManyValues(limits)
          : undefined;
    if (refusal) {
      detach();
      // Nothing more is read until the answer is written and the close decides (drain or not).
      payload.pause();
      done(refusal);
      return;
    }
    chunks.push(bytes);
    // A long body is counted one chunk a turn: a burst of chunks read together would otherwise
    // be counted in one long turn of the event loop.
    if (received > YIELDING_BODY_BYTES) {
      payload.pause();
      setImmediate(() => payload.resume());
    }
  }
  function onEnd() {
    detach();
    if (!Number.isNaN(declared) && (payload.receivedEncodedLength || received) !== declared) {
      done(new fastify.errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
      return;
    }
    const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, received);
    const text = body.toString('utf8');
    if (received <= YIELDING_BODY_BYTES) {
      parse(text, done);
      return;
    }
    // A long body: the parse in a turn of its own, and what follows it (validation, the handler) in the next.
    setImmediate(() => parse(text, (error, parsed) => setImmediate(() => done(error, parsed))));
  }
  function onError(error: Error & { statusCode?: number }) {
    detach();
    if (!(typeof error.statusCode === 'number' && error.statusCode >= 400)) error.statusCode = 400;
    done(error);
  }
  payload.on('data', onData);
  payload.on('end', onEnd);
  payload.on('error', onError);
  payload.resume();
}

/**
 * Every route's JSON body is bounded by what its endpoint accepts (`jsonBodyLimits`), in bytes and
 * in values, while it is received (`readJsonBody`): a body over either limit is refused with a 400
 * `invalid_request` naming the limit at the chunk that crosses it, and never decoded or parsed.
 * Routes without an endpoint and unknown paths get the small limits. An endpoint's byte limit is
 * also the route's `bodyLimit` for its other body types unless the route set its own (POST
 * /v2/batch does, for uploaded lists). Register before the routes.
 */
export const jsonBodyPlugin = globalPlugin('svc-json-body', async (app) => {
  const ceiling = app.svc.options.limits.jsonBodyBytes;
  const small = jsonBodyLimits(undefined, ceiling);
  app.addHook('onRoute', (route) => {
    const endpoint = (route.config as FastifyContextConfig | undefined)?.endpoint;
    if (!endpoint) return;
    const limits = jsonBodyLimits(endpoint, ceiling);
    route.bodyLimit ??= limits.bytes;
    route.config = { ...route.config, jsonBody: limits };
  });

  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', (request: FastifyRequest, payload, done) => {
    readJsonBody(
      request,
      payload,
      routeConfigOf(request)?.jsonBody ?? small,
      (text, parsed) => parseJson(request, text, parsed),
      done,
    );
  });
});
