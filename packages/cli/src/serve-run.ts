import { join } from 'node:path';
import { updatedListsPath } from '@svc/geo-resolver';
import type { LoadedConfig, ResolvedServerOptions, RunningServer, ServeOptions } from '@svc/server';
import { serve } from '@svc/server';
import { EXIT, type ExitCode } from './exit-codes.js';
import { openCliGeoResolver } from './geo-data.js';
import { installedCityPath, UPDATE_SOURCES } from './geo-update.js';
import type { CliIo } from './io.js';
import { cliSqliteDriver } from './sqlite-driver.js';

/**
 * Starts the server and returns once it listens; the process then lives on the open server
 * until SIGTERM/SIGINT, which stop it gracefully and exit. Loaded on demand so that the other
 * commands never load Fastify.
 */
export async function runServer(
  io: CliIo,
  loaded: LoadedConfig,
  resolved: ResolvedServerOptions,
): Promise<ExitCode> {
  await startServer(io, loaded, resolved);
  return EXIT.ok;
}

/** What runServer starts, returned (tests pass `{ handleSignals: false }` and close it). */
export async function startServer(
  io: CliIo,
  loaded: LoadedConfig,
  resolved: ResolvedServerOptions,
  extra: Pick<ServeOptions, 'handleSignals'> = {},
): Promise<RunningServer> {
  const databases = resolved.geo.databases;
  const geoData = join(resolved.dataDir, 'geo');
  return serve({
    sqliteDriver: await cliSqliteDriver(),
    options: { ...loaded.options, dataDir: resolved.dataDir },
    env: io.env,
    cwd: io.cwd,
    stdout: io.stdout,
    stderr: io.stderr,
    ...extra,
    // The given files are opened by serve (which describes them in /v2/health); else the same
    // data as `svc geo`: the bundled data with what `svc geo update` installed in front, which
    // an update replaces. Both live in the server's data dir (`<dataDir>/geo`), the one the other
    // commands use too, so `svc geo update` run with the same environment reaches it.
    ...(databases.length > 0
      ? {}
      : {
          openGeo: (extra) => openCliGeoResolver(io, [], undefined, extra.geofeed, geoData),
          geoStampFiles: [
            ...UPDATE_SOURCES.map((source) => installedCityPath(geoData, source)),
            // `svc geo update --lists` (or the server's own list refresh) installs this file.
            updatedListsPath(geoData),
          ],
        }),
  });
}
