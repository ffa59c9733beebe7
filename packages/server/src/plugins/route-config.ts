import type { FastifyContextConfig, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** @internal The route's `config`, kept by `routeConfigOf` on its first read (null: none). */
    svcRouteConfig?: FastifyContextConfig | null;
  }
}

/**
 * The `config` its route declared for a request (endpoint id, `probes`). Fastify's
 * `request.routeOptions` builds a new object on every read and asks the router about version
 * constraints; the hooks need the config five times a request, so it is read once and kept.
 */
export function routeConfigOf(request: FastifyRequest): FastifyContextConfig | undefined {
  request.svcRouteConfig ??= request.routeOptions.config ?? null;
  return request.svcRouteConfig ?? undefined;
}
