import { svcDataDir } from '@svc/geo-resolver';

/**
 * Where svc keeps compiled data and caches: $SVC_DATA_DIR, else $XDG_CACHE_HOME/svc, else
 * ~/.cache/svc (the rule lives in @svc/geo-resolver, whose default resolver uses it too).
 */
export function dataDir(env: Record<string, string | undefined>): string {
  return svcDataDir(env);
}
