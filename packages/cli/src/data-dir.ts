import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where svc keeps compiled data and caches: $SVC_DATA_DIR, else $XDG_CACHE_HOME/svc, else ~/.cache/svc. */
export function dataDir(env: Record<string, string | undefined>): string {
  if (env.SVC_DATA_DIR) return env.SVC_DATA_DIR;
  return join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'svc');
}
