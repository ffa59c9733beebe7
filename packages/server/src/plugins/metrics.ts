import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import { endpointOf } from './auth.js';
import { globalPlugin } from './global-plugin.js';

/**
 * Prometheus metrics at `metrics.path` (off by default): request counts and durations by method,
 * endpoint id and status, and the process's default metrics. No key: bind the server to a
 * private interface or keep the path from the public proxy. Each server has its own registry.
 */
export const metricsPlugin = globalPlugin('svc-metrics', async (app) => {
  const path = app.svc.options.metrics.path;
  if (!path) return;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const labelNames = ['method', 'endpoint', 'status'] as const;
  const requests = new Counter({
    name: 'svc_http_requests_total',
    help: 'HTTP requests answered, by method, endpoint id and status',
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'svc_http_request_duration_seconds',
    help: 'Time to answer HTTP requests, by method, endpoint id and status',
    labelNames,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15, 60],
    registers: [registry],
  });
  app.addHook('onResponse', (request, reply, done) => {
    const labels = {
      method: request.method,
      endpoint: endpointOf(request) ?? (request.is404 ? 'not_found' : 'other'),
      status: String(reply.statusCode),
    };
    requests.inc(labels);
    duration.observe(labels, reply.elapsedTime / 1000);
    done();
  });
  // Not an endpoint of the API: no `config.endpoint` (no key) and left out of the OpenAPI document.
  app.get(path, { schema: { hide: true } as Record<string, unknown> }, async (_request, reply) => {
    return reply.type(registry.contentType).send(await registry.metrics());
  });
});
