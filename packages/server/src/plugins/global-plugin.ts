import type { FastifyPluginAsync } from 'fastify';

/**
 * Marks a plugin as not encapsulated (what the `fastify-plugin` package does), so the hooks and
 * handlers it installs apply to the routes registered beside it, not only inside it.
 */
export function globalPlugin<T extends FastifyPluginAsync>(name: string, plugin: T): T {
  const marked = plugin as unknown as Record<symbol, unknown>;
  marked[Symbol.for('skip-override')] = true;
  marked[Symbol.for('fastify.display-name')] = name;
  return plugin;
}
