import type { FastifyPluginAsync, FastifyPluginOptions } from 'fastify';
import fastifyPlugin from 'fastify-plugin';

/*
 * The hooks of our plugins are callback hooks (`(request, reply, done)`), not async functions,
 * wherever their usual path needs no waiting: Fastify goes on from a callback hook at once, but
 * from an async one only on a later microtask turn, after a promise per hook. A request passes
 * eight of our hooks; where one must wait (a store read, a Redis limiter), it calls `done` when
 * the promise settles.
 */

/**
 * A plugin that is not encapsulated (`fastify-plugin`), so the hooks and decorators it installs
 * apply to the routes registered beside it, not only inside it; `name` is what Fastify's errors
 * and `printPlugins()` call it.
 */
export function globalPlugin<Options extends FastifyPluginOptions = Record<never, never>>(
  name: string,
  plugin: FastifyPluginAsync<Options>,
): FastifyPluginAsync<Options> {
  return fastifyPlugin(plugin, { name });
}
