import { mkdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ServiceError } from '@svc/core';
import { redactedPostgresUrl } from '@svc/core/postgres';
import {
  type AccountDeps,
  CONTROL_PLANE_DB_FILE,
  ConfigError,
  type ControlPlaneStore,
  createPostgresControlPlaneStore,
  createServerSecrets,
  createSqliteControlPlaneStore,
  loadServerConfig,
  loadServerKey,
  type ResolvedServerOptions,
  resolveServerOptions,
  serverDataDir,
} from '@svc/server';
import { describeCause, errnoCode, fileError } from '../../fs/describe-error.js';
import type { CliIo } from '../../io.js';
import { namingStore } from '../../not-found.js';
import { cliSqliteDriver } from '../../sqlite-driver.js';

/** An open control-plane store with what the account operations need. */
export interface ControlPlane {
  store: ControlPlaneStore;
  options: ResolvedServerOptions;
  /** The database file, or the PostgreSQL URL (password masked) with `databaseUrl`. */
  path: string;
  /** The account operations' dependencies; `secrets` loads the server key on first use. */
  deps(): AccountDeps;
  close(): Promise<void>;
}

/**
 * Opens the same control-plane store `svc serve` uses: the data dir and plans come from
 * the same config file and `SVC_*` variables, `--data-dir` over both. `create`: make the data
 * dir (0700) and database when missing (`svc accounts create` before the first start); every
 * other command needs the database to exist, so a mistyped data dir is not a new empty store.
 * With `databaseUrl` (SVC_DATABASE_URL) the store is PostgreSQL's, as for every process of a
 * deployment (docs/deployment.md); the data dir then holds only the server key, unless
 * SVC_SECRET_KEY gives it.
 */
export async function openControlPlane(
  io: CliIo,
  values: Record<string, unknown>,
  { create }: { create: boolean },
): Promise<ControlPlane> {
  const options = await serverOptions(io, values);
  if (options.databaseUrl) return withStore(io, options, await openPostgres(options.databaseUrl));
  const path = join(options.dataDir, CONTROL_PLANE_DB_FILE);
  if (create) {
    try {
      await mkdir(options.dataDir, { recursive: true, mode: 0o700 });
    } catch (error) {
      throw fileError('create the data dir', options.dataDir, error);
    }
  } else await mustExist(path);
  let store: ControlPlaneStore;
  try {
    store = await createSqliteControlPlaneStore({ path, driver: await cliSqliteDriver() });
  } catch (error) {
    throw new ServiceError(
      'invalid_request',
      `cannot open the control-plane database ${path}: ${describeCause(error)}`,
      { cause: error },
    );
  }
  return withStore(io, options, { store, path });
}

/**
 * Opens the control plane, runs `use` on it and closes it. A "not found" answer names the store it
 * searched (`no account acct_… in /home/u/.local/share/svc/control-plane.db`, or the URL).
 */
export async function withControlPlane<T>(
  io: CliIo,
  values: Record<string, unknown>,
  options: { create: boolean },
  use: (plane: ControlPlane) => Promise<T>,
): Promise<T> {
  const plane = await openControlPlane(io, values, options);
  try {
    return await use(plane);
  } catch (error) {
    throw namingStore(error, plane.path);
  } finally {
    await plane.close();
  }
}

async function openPostgres(url: string): Promise<{ store: ControlPlaneStore; path: string }> {
  // Named in messages, so without its password.
  const path = redactedPostgresUrl(url);
  try {
    return { store: await createPostgresControlPlaneStore({ connectionString: url }), path };
  } catch (error) {
    throw new ServiceError(
      'invalid_request',
      `cannot open the control-plane database ${path}: ${describeCause(error)}`,
      { cause: error },
    );
  }
}

async function withStore(
  io: CliIo,
  options: ResolvedServerOptions,
  { store, path }: { store: ControlPlaneStore; path: string },
): Promise<ControlPlane> {
  // The server writes its configured plans at start; the CLI only adds those the store lacks, so
  // running it without the server's config never changes a plan the server is using.
  for (const plan of Object.values(options.plans)) {
    if (!(await store.getPlan(plan.id))) await store.upsertPlan(plan);
  }
  let deps: AccountDeps | null = null;
  return {
    store,
    options,
    path,
    deps() {
      deps ??= {
        controlPlane: store,
        secrets: createServerSecrets(loadServerKey({ dataDir: options.dataDir, env: io.env }).key),
        now: Date.now,
      };
      return deps;
    },
    close: () => store.close(),
  };
}

async function serverOptions(io: CliIo, values: Record<string, unknown>): Promise<ResolvedServerOptions> {
  try {
    const loaded = await loadServerConfig({
      file: (values.config as string | undefined) ?? null,
      env: io.env,
      cwd: io.cwd,
    });
    const flag = values['data-dir'] as string | undefined;
    const dataDir = serverDataDir({
      dataDir: flag === undefined ? loaded.options.dataDir : resolve(io.cwd, flag),
      env: io.env,
      cwd: io.cwd,
    });
    if (dataDir.notice) io.stderr.write(`svc: notice: ${dataDir.notice}\n`);
    return resolveServerOptions({ ...loaded.options, dataDir: dataDir.path });
  } catch (error) {
    if (error instanceof ConfigError)
      throw new ServiceError('invalid_request', error.message, { cause: error });
    throw error;
  }
}

async function mustExist(path: string): Promise<void> {
  try {
    if ((await stat(path)).isDirectory())
      throw fileError('open the control-plane database', path, { code: 'EISDIR' });
  } catch (error) {
    if (ServiceError.is(error)) throw error;
    if (errnoCode(error) === 'ENOENT')
      throw new ServiceError(
        'not_found',
        `no control-plane database at ${path}: svc serve creates it on first start (or svc accounts create); is --data-dir right?`,
      );
    throw fileError('open the control-plane database', path, error);
  }
}
