import type { DoctorOptions } from '@svc/email-verifier';
import { ConfigError, loadServerConfig, resolveServerOptions, serverDoctorOptions } from '@svc/server';
import type { CliIo } from '../io.js';
import { UsageError } from '../usage-error.js';

/**
 * The doctor options for the identity `svc serve` would probe with: its config file, then the
 * SVC_* variables (smtp.heloName, smtp.mailFrom, smtp.port, smtp.proxies, dns, probing.*). Kept
 * apart from doctor.ts because it loads @svc/server, which only `--config` needs.
 */
export async function doctorOptionsFromServerConfig(io: CliIo, file: string): Promise<DoctorOptions> {
  try {
    const loaded = await loadServerConfig({ file, env: io.env, cwd: io.cwd });
    for (const warning of loaded.warnings) io.stderr.write(`svc: warning: ${warning}\n`);
    return serverDoctorOptions(resolveServerOptions(loaded.options));
  } catch (error) {
    if (error instanceof ConfigError || error instanceof TypeError) {
      throw new UsageError((error as Error).message, 'doctor', false);
    }
    throw error;
  }
}
