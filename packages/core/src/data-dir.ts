import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

type Env = Record<string, string | undefined>;

/**
 * The one data directory of svc, for the server and every CLI command: `$SVC_DATA_DIR`, else
 * `$XDG_DATA_HOME/svc`, else `~/.local/share/svc`. A per-user data directory, not a cache: it
 * holds the server's secret key, its accounts and batch jobs, which a cache cleaner must not take.
 */
export function svcDataDir(env: Env = process.env): string {
  return env.SVC_DATA_DIR || userDataDir(env);
}

/** `$XDG_DATA_HOME/svc`, else `~/.local/share/svc` (XDG: a relative XDG_DATA_HOME is ignored). */
function userDataDir(env: Env): string {
  const xdg = env.XDG_DATA_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(homeDir(env), '.local', 'share');
  return join(base, 'svc');
}

/** `$HOME` of the given environment (tests give their own), else the OS's. */
export function homeDir(env: Env = process.env): string {
  return env.HOME || homedir();
}

/** Where earlier versions kept the data, and the files that show it holds some. */
export interface EarlierDataDir {
  path: string;
  /** Names inside `path`; any of them present means data worth keeping (a secret key, a database). */
  files: readonly string[];
}

/** The data directory to use, and a notice for stderr when an earlier location is involved. */
export interface DataDirChoice {
  path: string;
  notice: string | null;
}

/**
 * `svcDataDir(env)`, except when nothing is configured (no `SVC_DATA_DIR`) and the new default
 * holds none of `earlier.files` while the earlier location holds some: then the earlier location,
 * with a notice saying so and how to move. Checking the files, not the folder, matters: a folder
 * made by another command (the geo data) must not hide a secret key kept in the earlier place.
 * When both hold data the new default is used and the notice names the data left behind.
 */
export function chooseDataDir(env: Env, earlier: EarlierDataDir): DataDirChoice {
  if (env.SVC_DATA_DIR) return { path: env.SVC_DATA_DIR, notice: null };
  const path = userDataDir(env);
  const holdsData = (dir: string) => earlier.files.some((file) => existsSync(join(dir, file)));
  if (!holdsData(earlier.path)) return { path, notice: null };
  if (!holdsData(path))
    return {
      path: earlier.path,
      notice:
        `using the data in ${earlier.path}, where earlier versions kept it; the default data dir is now ${path}. ` +
        `Move its files there (with svc stopped), or set SVC_DATA_DIR=${earlier.path} to keep it where it is.`,
    };
  return {
    path,
    notice:
      `${earlier.path} holds data of an earlier version that is not used: the data dir is ${path}. ` +
      `Move what you need from it, or set SVC_DATA_DIR=${earlier.path} to use it instead.`,
  };
}
