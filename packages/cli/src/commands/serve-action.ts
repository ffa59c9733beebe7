import { resolve } from 'node:path';
import {
  ConfigError,
  loadServerConfig,
  printableConfig,
  resolveServerOptions,
  type ServerOptions,
} from '@svc/server';
import type { CommandContext } from '../command.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { printJson } from '../output.js';
import { UsageError } from '../usage-error.js';

/**
 * What `svc serve` does. Kept apart from the command table's entry (serve.ts) because it loads
 * @svc/server, and with it Fastify: only `svc serve` pays for that, not `svc version` or `svc geo`.
 */
export async function runServe({ io, values, positionals }: CommandContext): Promise<ExitCode> {
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`, 'serve');
  const overrides: { host?: string; port?: number; role?: ServerOptions['role'] } = {};
  if (values.host !== undefined) overrides.host = String(values.host);
  if (values.port !== undefined) {
    const text = String(values.port);
    if (!/^\d+$/.test(text) || Number(text) > 65_535)
      throw new UsageError(`--port must be a port number from 0 to 65535, got "${text}"`, 'serve');
    overrides.port = Number(text);
  }
  if (values.role !== undefined) {
    const text = String(values.role);
    if (text !== 'api' && text !== 'worker' && text !== 'all')
      throw new UsageError(`--role must be api, worker or all, got "${text}"`, 'serve');
    overrides.role = text;
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
}
