import fastifyCors from '@fastify/cors';
import { globalPlugin } from './global-plugin.js';

/** Headers a browser may send to the API, and headers its scripts may read from responses. */
const ALLOWED_HEADERS = ['X-API-Key', 'Content-Type', 'Idempotency-Key'];
const EXPOSED_HEADERS = [
  'X-Request-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'X-Quota-Limit',
  'X-Quota-Remaining',
  'Retry-After',
  'Location',
];

/**
 * CORS for browsers calling the API with tokens, from `cors.origins` only (none by default: then
 * nothing is registered and no response carries CORS headers). No cookies are involved, so
 * credentials are not allowed.
 */
export const corsPlugin = globalPlugin('svc-cors', async (app) => {
  const origins = app.svc.options.cors.origins;
  if (origins.length === 0) return;
  await app.register(fastifyCors, {
    origin: origins,
    methods: ['GET', 'POST', 'DELETE'],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    credentials: false,
    maxAge: 600,
  });
});
