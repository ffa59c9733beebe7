import { ServiceError } from '@svc/core';
import type { FastifyContextConfig, FastifyRequest } from 'fastify';
import { ENDPOINTS, type EndpointId, type EndpointSpec } from '../endpoints.js';
import { globalPlugin } from './global-plugin.js';
import { routeConfigOf } from './route-config.js';

/** Bytes of the JSON body of an endpoint without a list: a verification with its options is a few hundred. */
export const SMALL_JSON_BODY_BYTES = 16_384;
/** Bytes per entry of a list endpoint's longest list: the longest address (254 characters) quoted, with its comma. */
export const LIST_ENTRY_BYTES = 257;
/** JSON values (objects, arrays, members and items) a body may hold besides its list's entries. */
export const SMALL_JSON_VALUES = 256;

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
    jsonBody?: JsonBodyLimits & {
      /** The route's own byte limit is larger (other body types): the JSON body is measured again. */
      measure: boolean;
    };
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

/**
 * Whether JSON text holds more than `max` values, counted without parsing it: one, plus one per
 * `{`, `[` and `,` outside strings. Parsing is what costs: 1 MiB of `{},{},…` took JSON.parse
 * 0.1–0.3 s of the event loop, and 60,000 keys of one object 50–170 ms; this count takes a
 * millisecond or two and jumps over strings with `indexOf`. Malformed text may be miscounted; its
 * parse fails anyway.
 */
export function jsonValuesOver(text: string, max: number): boolean {
  let count = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: its closing quote is the next one not escaped by an odd run of backslashes.
      let end = text.indexOf('"', i + 1);
      while (end !== -1) {
        let slashes = 0;
        while (text.charCodeAt(end - 1 - slashes) === 0x5c) slashes++;
        if (slashes % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      if (end === -1) return false;
      i = end;
    } else if (c === 0x2c || c === 0x7b || c === 0x5b) {
      if (++count > max) return true;
    }
  }
  return false;
}

/**
 * Every route's JSON body is bounded by what its endpoint accepts (`jsonBodyLimits`): its byte
 * limit becomes the route's `bodyLimit` (unless the route set one of its own, as POST /v2/batch
 * does for uploaded lists; then the JSON body is measured again here), and a body holding more
 * values than that is refused before it is parsed. Routes without an endpoint and unknown paths
 * get the small limits. Both refusals are 400 `invalid_request` naming the limit. Register before
 * the routes.
 */
export const jsonBodyPlugin = globalPlugin('svc-json-body', async (app) => {
  const ceiling = app.svc.options.limits.jsonBodyBytes;
  const small = jsonBodyLimits(undefined, ceiling);
  app.addHook('onRoute', (route) => {
    const endpoint = (route.config as FastifyContextConfig | undefined)?.endpoint;
    if (!endpoint) return;
    const limits = jsonBodyLimits(endpoint, ceiling);
    route.bodyLimit ??= limits.bytes;
    route.config = { ...route.config, jsonBody: { ...limits, measure: route.bodyLimit > limits.bytes } };
  });

  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: small.bytes },
    (request: FastifyRequest, body, done) => {
      const text = body as string;
      const limits = routeConfigOf(request)?.jsonBody ?? small;
      if ('measure' in limits && limits.measure && Buffer.byteLength(text) > limits.bytes) {
        done(
          new ServiceError(
            'invalid_request',
            `the JSON body is larger than this endpoint's limit of ${limits.bytes} bytes`,
          ),
        );
        return;
      }
      if (jsonValuesOver(text, limits.values)) {
        done(
          new ServiceError(
            'invalid_request',
            `the JSON body holds more than this endpoint's limit of ${limits.values} values (objects, arrays, their members and items)`,
          ),
        );
        return;
      }
      parseJson(request, text, done);
    },
  );
});
