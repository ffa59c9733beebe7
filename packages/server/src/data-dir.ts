import { resolve } from 'node:path';
import { chooseDataDir, type DataDirChoice } from '@svc/core';
import { SERVER_KEY_FILE } from './control-plane/server-key.js';
import { CONTROL_PLANE_DB_FILE } from './control-plane/stores/sqlite.js';

/** Where earlier versions of `svc serve` kept their data by default, from the working directory. */
export const EARLIER_SERVER_DATA_DIR = 'svc-data';

export interface ServerDataDirInput {
  /** `dataDir` as configured (config file, `SVC_DATA_DIR`, `--data-dir`), or undefined. */
  dataDir?: string | undefined;
  env: Record<string, string | undefined>;
  cwd: string;
}

/**
 * The server's data dir, absolute: `dataDir` as configured, else svc's one data dir (@svc/core's
 * `svcDataDir`: `$SVC_DATA_DIR`, `$XDG_DATA_HOME/svc`, `~/.local/share/svc`). Earlier versions
 * defaulted to `./svc-data`: while that holds a server key or control plane and the new default
 * does not, it is used, with a notice for stderr, so an upgrade never starts over with a new key
 * (which would orphan every account's webhook secret and the owner's keys).
 */
export function serverDataDir(input: ServerDataDirInput): DataDirChoice {
  if (input.dataDir !== undefined) return { path: resolve(input.cwd, input.dataDir), notice: null };
  const chosen = chooseDataDir(input.env, {
    path: resolve(input.cwd, EARLIER_SERVER_DATA_DIR),
    files: [SERVER_KEY_FILE, CONTROL_PLANE_DB_FILE],
  });
  return { path: resolve(input.cwd, chosen.path), notice: chosen.notice };
}
