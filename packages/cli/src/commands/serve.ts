import { resolve } from 'node:path';
import { ConfigError, loadServerConfig, printableConfig, resolveServerOptions } from '@svc/server';
import type { Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { printJson } from '../output.js';
import { UsageError } from '../usage-error.js';

/** `svc serve`: runs the /v2 HTTP API (packages/server) until SIGTERM or SIGINT. */
export const serveCommand: Command = {
  name: 'serve',
  summary: 'Run the /v2 HTTP API server',
  usage: ['[--host H] [--port P] [--config svc.json] [--print-config]'],
  details: `Settings come from the JSON config file (--config, else $SVC_CONFIG), then SVC_*
environment variables, then --host/--port (the server's README lists them all).
--print-config prints the effective settings as JSON, secrets masked, and exits.
On first start the data dir is created and an owner account's first test and live keys and
webhook signing secret are printed once: keep them. SIGTERM or SIGINT stops the server
gracefully (no new connections, requests in flight finish, batch work is handed back).`,
  options: {
    host: { type: 'string' },
    port: { type: 'string' },
    config: { type: 'string' },
    'print-config': { type: 'boolean', default: false },
  },
  async run({ io, values, positionals }) {
    if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`, 'serve');
    const overrides: { host?: string; port?: number } = {};
    if (values.host !== undefined) overrides.host = String(values.host);
    if (values.port !== undefined) {
      const text = String(values.port);
      if (!/^\d+$/.test(text) || Number(text) > 65_535)
        throw new UsageError(`--port must be a port number from 0 to 65535, got "${text}"`, 'serve');
      overrides.port = Number(text);
    }
    let loaded: Awaited<ReturnType<typeof loadServerConfig>>;
    try {
      loaded = await loadServerConfig({
        file: values.config === undefined ? null : String(values.config),
        env: io.env,
        cwd: io.cwd,
        overrides,
      });
    } catch (error) {
      // A bad setting is the operator's to fix before anything starts: exit 2, no usage text.
      if (error instanceof ConfigError) throw new UsageError(error.message, 'serve', false);
      throw error;
    }
    for (const warning of loaded.warnings) io.stderr.write(`svc: warning: ${warning}\n`);
    const resolved = resolveServerOptions(loaded.options);
    // The default data dir is relative: pin it to where svc was started, for printing and serving.
    resolved.dataDir = resolve(io.cwd, resolved.dataDir);
    if (values['print-config']) {
      printJson(io, printableConfig(resolved, loaded, io.env));
      return EXIT.ok;
    }
    const { runServer } = await import('../serve-run.js');
    return runServer(io, loaded, resolved);
  },
};
