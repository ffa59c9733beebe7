import fastifyCompress from '@fastify/compress';
import { globalPlugin } from './global-plugin.js';

/**
 * Compresses responses of 1 KiB and more (bulk results, job lists, CSV/NDJSON streams) with
 * whatever the client accepts (gzip, deflate, br); small answers go as they are, where
 * compression would cost more time than it saves.
 */
export const compressPlugin = globalPlugin('svc-compress', async (app) => {
  await app.register(fastifyCompress, {
    global: true,
    threshold: 1024,
    encodings: ['gzip', 'deflate', 'br'],
  });
});
