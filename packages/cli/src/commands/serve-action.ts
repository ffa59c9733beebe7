import {
  ConfigError,
  loadServerConfig,
  printableConfig,
  resolveServerOptions,
  serveFlags,
  serverDataDir,
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
  // --host, --port and --role are settings: their text is checked by the settings' own rules.
  const flags: Record<string, string> = {};
  for (const { flag } of serveFlags()) {
    const value = values[flag.slice(2)];
    if (value !== undefined) flags[flag] = String(value);
  }
  let loaded: Awaited<ReturnType<typeof loadServerConfig>>;
  try {
    loaded = await loadServerConfig({
      file: values.config === undefined ? null : String(values.config),
      env: io.env,
      cwd: io.cwd,
      flags,
    });
  } catch (error) {
    // A bad setting is the operator's to fix before anything starts: exit 2, no usage text.
    if (error instanceof ConfigError) throw new UsageError(error.message, 'serve', false);
    throw error;
  }
  for (const warning of loaded.warnings) io.stderr.write(`svc: warning: ${warning}\n`);
  // Chosen once here (with the notice when an earlier ./svc-data is used), for printing and serving.
  const dataDir = serverDataDir({ dataDir: loaded.options.dataDir, env: io.env, cwd: io.cwd });
  if (dataDir.notice) io.stderr.write(`svc: notice: ${dataDir.notice}\n`);
  const resolved = resolveServerOptions({ ...loaded.options, dataDir: dataDir.path });
  if (values['print-config']) {
    printJson(io, printableConfig(resolved, loaded, io.env));
    return EXIT.ok;
  }
  const { runServer } = await import('../serve-run.js');
  return runServer(io, loaded, resolved);
}
