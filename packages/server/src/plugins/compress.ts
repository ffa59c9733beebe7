import fastifyCompress from '@fastify/compress';
import { ENDPOINTS } from '../endpoints.js';
import { globalPlugin } from './global-plugin.js';

/** Methods that carry no request body: nothing to decompress. */
const BODILESS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);

/**
 * Compresses responses of 1 KiB and more (bulk results, job lists, CSV/NDJSON streams) with
 * whatever the client accepts (gzip, deflate, br); small answers go as they are, where
 * compression would cost more time than it saves. Request bodies sent with Content-Encoding are
 * decompressed.
 */
export const compressPlugin = globalPlugin('svc-compress', async (app) => {
  // Added before @fastify/compress's own onRoute hook, so that one sees these route options.
  app.addHook('onRoute', (route) => {
    const endpoint = route.config?.endpoint;
    // Endpoints whose answer is one small object (`smallAnswer` in the endpoint table) get none
    // of the compression hooks.
    if (route.compress === undefined && endpoint && 'smallAnswer' in ENDPOINTS[endpoint])
      route.compress = false;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (route.decompress === undefined && methods.every((method) => BODILESS.has(method)))
      route.decompress = false;
  });
  await app.register(fastifyCompress, {
    global: true,
    threshold: 1024,
    encodings: ['gzip', 'deflate', 'br'],
  });
});
