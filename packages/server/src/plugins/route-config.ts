import type { FastifyContextConfig, FastifyRequest } from 'fastify';

const CONFIG = Symbol('svc.routeConfig');

/**
 * The `config` its route declared for a request (endpoint id, `probes`). Fastify's
 * `request.routeOptions` builds a new object on every read and asks the router about version
 * constraints; the hooks need the config five times a request, so it is read once and kept.
 */
export function routeConfigOf(request: FastifyRequest): FastifyContextConfig | undefined {
  const own = request as unknown as { [CONFIG]?: FastifyContextConfig | null };
  let config = own[CONFIG];
  if (config === undefined) {
    config = request.routeOptions.config ?? null;
    own[CONFIG] = config;
  }
  return config ?? undefined;
}
