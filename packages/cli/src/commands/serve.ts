import type { Command } from '../command.js';

/** `svc serve`: runs the /v2 HTTP API (packages/server) until SIGTERM or SIGINT. */
export const serveCommand: Command = {
  name: 'serve',
  summary: 'Run the /v2 HTTP API server',
  usage: ['[--host H] [--port P] [--role api|worker|all] [--config svc.json] [--print-config]'],
  details: `Settings come from the JSON config file (--config, else $SVC_CONFIG), then SVC_*
environment variables, then --host/--port/--role (the server's README lists them all).
--role (default all) picks what this process runs: api (the HTTP API; it submits batch jobs
but never runs them), worker (batch jobs and webhook delivery; a health port only) or all.
api and worker need databaseUrl (PostgreSQL), and redisUrl to wake workers at once and share
rate limits between API processes (docs/deployment.md).
--print-config prints the effective settings as JSON, secrets masked, and exits.
On first start the data dir is created and an owner account's first test and live keys and
webhook signing secret are printed once, on stderr (stdout carries the request log): keep them. SIGTERM or SIGINT stops the server
gracefully (no new connections, requests in flight finish, batch work is handed back).`,
  options: {
    host: { type: 'string' },
    port: { type: 'string' },
    role: { type: 'string' },
    config: { type: 'string' },
    'print-config': { type: 'boolean', default: false },
  },
  async run(context) {
    // Loaded on demand: @svc/server brings Fastify, which no other command needs.
    return (await import('./serve-action.js')).runServe(context);
  },
};
