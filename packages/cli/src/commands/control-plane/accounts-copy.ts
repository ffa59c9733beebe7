import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ServiceError } from '@svc/core';
import { CONTROL_PLANE_DB_FILE, copyControlPlane, createSqliteControlPlaneStore } from '@svc/server';
import { EXIT, type ExitCode } from '../../exit-codes.js';
import { errnoCode } from '../../fs/describe-error.js';
import type { CliIo } from '../../io.js';
import { printJson } from '../../output.js';
import { cliSqliteDriver } from '../../sqlite-driver.js';
import { UsageError } from '../../usage-error.js';
import { openControlPlane } from './open.js';

/**
 * `svc accounts copy --from <data dir>`: a single-process server's accounts, keys, webhook
 * secrets, plans and usage (its `control-plane.db`) into the deployment's PostgreSQL control
 * plane (docs/deployment.md, "Moving from the SQLite default").
 */
export async function copyAccounts(
  io: CliIo,
  json: boolean,
  values: Record<string, unknown>,
): Promise<ExitCode> {
  const from = values.from as string | undefined;
  if (!from) throw new UsageError('accounts copy needs --from <the SQLite server’s data dir>', 'accounts');
  const source = join(resolve(io.cwd, from), CONTROL_PLANE_DB_FILE);
  try {
    if (!(await stat(source)).isFile()) throw new Error('not a file');
  } catch (error) {
    throw new ServiceError(
      'not_found',
      errnoCode(error) === 'ENOENT'
        ? `no control-plane database at ${source}: --from names the data dir of the SQLite server`
        : `cannot read ${source}`,
    );
  }
  const target = await openControlPlane(io, values, { create: false });
  try {
    if (!target.options.databaseUrl)
      throw new UsageError(
        'accounts copy copies into the PostgreSQL control plane of a deployment: set databaseUrl (SVC_DATABASE_URL) to its database',
        'accounts',
        false,
      );
    const store = await createSqliteControlPlaneStore({ path: source, driver: await cliSqliteDriver() });
    try {
      const report = await copyControlPlane({ from: store, to: target.store });
      if (json) printJson(io, { from: source, to: target.path, copied: report });
      else
        io.stdout.write(
          `copied ${report.accounts} accounts, ${report.keys} keys, ${report.webhookSecrets} webhook secrets, ` +
            `${report.plans} plans and ${report.usageLines} usage lines from ${source} into ${target.path}\n`,
        );
      io.stderr.write(
        'the keys keep working; the webhook secrets open only with the same server key: give every process SVC_SECRET_KEY from the old data dir\n',
      );
      return EXIT.ok;
    } finally {
      await store.close();
    }
  } finally {
    await target.close();
  }
}
