import type { FastifyPluginAsync } from 'fastify';

/*
 * The hooks of our plugins are callback hooks (`(request, reply, done)`), not async functions,
 * wherever their usual path needs no waiting: Fastify goes on from a callback hook at once, but
 * from an async one only on a later microtask turn, after a promise per hook. A request passes
 * eight of our hooks; where one must wait (a store read, a Redis limiter), it calls `done` when
 * the promise settles.
 */

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
