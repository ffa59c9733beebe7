import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import { ServiceError } from '@svc/core';
import type { FastifyPluginAsync } from 'fastify';

/**
 * Where `pnpm build` writes the dashboard (@svc/dashboard's Vite build): `dashboard/` in this
 * package, beside `src/` and `dist/` (the same two levels up from either), and shipped in the
 * package's tarball so a global install serves it too.
 */
export const DASHBOARD_DIR = fileURLToPath(new URL('../../dashboard/', import.meta.url));

/**
 * The page's own policy: everything from this server, nothing inline but the empty favicon, no
 * frames. The page talks only to /v2 on the same origin.
 */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export interface DashboardPluginOptions {
  /** The built page (a folder with `index.html`). @default DASHBOARD_DIR */
  root?: string;
}

/**
 * Serves the dashboard at /dashboard/ (and redirects /dashboard there): static files from the
 * Vite build, with a strict Content-Security-Policy, hashed assets cached for a year and
 * index.html never. Not part of the API, so not in the OpenAPI document; the page itself uses
 * only the public /v2 API with a token. When the page was not built, /dashboard answers 404
 * saying how to build it.
 */
export const dashboardPlugin: FastifyPluginAsync<DashboardPluginOptions> = async (app, options) => {
  const root = options.root ?? DASHBOARD_DIR;
  app.get('/dashboard', { schema: { hide: true } }, async (_request, reply) =>
    reply.redirect('/dashboard/', 302),
  );
  if (!existsSync(join(root, 'index.html'))) {
    const missing = async () => {
      throw new ServiceError(
        'not_found',
        `the dashboard is not built in this installation (no ${join(root, 'index.html')}); run \`pnpm build\` in the repository, which builds @svc/dashboard into packages/server/dashboard/`,
      );
    };
    app.get('/dashboard/', { schema: { hide: true } }, missing);
    app.get('/dashboard/*', { schema: { hide: true } }, missing);
    return;
  }
  // @fastify/static refuses some paths itself (traversal such as `/dashboard/%2e%2e/…`, a NUL
  // byte) with a bare 403, which the API's error plugin would read as a plan error. There is no
  // such file to serve: the spec's 404 `not_found`. Thrown on, so the API's error handler
  // renders it with its request id.
  app.setErrorHandler(async (error) => {
    const status = (error as { statusCode?: unknown }).statusCode;
    if (!ServiceError.is(error) && typeof status === 'number' && status >= 400 && status < 500) {
      throw new ServiceError('not_found', 'no such file in the dashboard; its page is at /dashboard/', {
        cause: error,
      });
    }
    throw error;
  });
  await app.register(fastifyStatic, {
    root,
    prefix: '/dashboard/',
    decorateReply: false,
    index: ['index.html'],
    cacheControl: false,
    etag: true,
    setHeaders(reply, path) {
      reply.header('Content-Security-Policy', DASHBOARD_CSP);
      reply.header('X-Content-Type-Options', 'nosniff');
      reply.header('X-Frame-Options', 'DENY');
      reply.header('Referrer-Policy', 'no-referrer');
      // Vite names assets by their content hash, so they never change; the page itself may.
      reply.header(
        'Cache-Control',
        path.includes(join('assets', '')) ? 'public, max-age=31536000, immutable' : 'no-cache',
      );
    },
  });
};
