import { join, resolve } from 'node:path';
import { chooseDataDir, homeDir } from '@svc/core';
import type { CliIo } from './io.js';

/**
 * What earlier versions kept in the user's cache (`$XDG_CACHE_HOME/svc`, else `~/.cache/svc`)
 * that is worth keeping: the job, dataset, cache and feedback databases, and the city files
 * `svc geo update` downloaded. The compiled geo data alone is not: it is made again.
 */
const EARLIER_CACHE_FILES = [
  'batch.db',
  'enrich-dataset.db',
  'enrich-cache.db',
  'feedback.db',
  join('geo', 'installed'),
] as const;

const chosen = new WeakMap<CliIo, string>();

/**
 * svc's one data directory, as `svc serve` uses it (@svc/core's `svcDataDir`: `$SVC_DATA_DIR`,
 * else `$XDG_DATA_HOME/svc`, else `~/.local/share/svc`), absolute. Earlier versions kept the
 * CLI's data in the user's cache: while that holds data and the new default does not, it is
 * used, and a notice on stderr (once per command) says so and how to move.
 */
export function dataDir(io: CliIo): string {
  let path = chosen.get(io);
  if (path === undefined) {
    const cache = io.env.XDG_CACHE_HOME || join(homeDir(io.env), '.cache');
    const choice = chooseDataDir(io.env, { path: join(cache, 'svc'), files: EARLIER_CACHE_FILES });
    if (choice.notice) io.stderr.write(`svc: notice: ${choice.notice}\n`);
    path = resolve(io.cwd, choice.path);
    chosen.set(io, path);
  }
  return path;
}

/** The geo data's folder in the data dir: the compiled ASN file, stamps, lists, `installed/`. */
export function geoDir(io: CliIo): string {
  return join(dataDir(io), 'geo');
}
