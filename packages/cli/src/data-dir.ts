import { mkdir } from 'node:fs/promises';
import { svcDataDir } from '@svc/geo-resolver';

/**
 * Where svc keeps compiled data and caches: $SVC_DATA_DIR, else $XDG_CACHE_HOME/svc, else
 * ~/.cache/svc (the rule lives in @svc/geo-resolver, whose default resolver uses it too).
 */
export function dataDir(env: Record<string, string | undefined>): string {
  return svcDataDir(env);
}

/**
 * Creates the data dir, readable only by the user (0700 whatever the umask: it holds job
 * databases with people's data), and returns its path.
 */
export async function ensureDataDir(env: Record<string, string | undefined>): Promise<string> {
  const dir = dataDir(env);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return dir;
}
