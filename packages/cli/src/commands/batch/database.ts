import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  type BatchRunner,
  type BatchRunnerOptions,
  createBatchRunner,
  createSqliteStore,
  type Processor,
  type Store,
} from '@svc/batch-runner';
import { checkDatabase } from '../../fs/check-paths.js';
import { fileError } from '../../fs/describe-error.js';
import { cliSqliteDriver } from '../../sqlite-driver.js';

/** A runner and its store over one job database. */
export interface JobDatabase {
  runner: BatchRunner;
  store: Store;
}

/** The job database for reading and managing jobs: it must exist, and nothing is processed. */
export async function openExisting(
  dbPath: string,
  webhooks?: BatchRunnerOptions['webhooks'],
): Promise<JobDatabase> {
  await checkDatabase(dbPath, true);
  const store = await createSqliteStore({ path: dbPath, mustExist: true, driver: await cliSqliteDriver() });
  return { runner: createBatchRunner({ store, processors: [], webhooks }), store };
}

/**
 * Makes the job database's folder (private) if missing and checks the file, before a run loads
 * any data: a bad --db or data dir fails in milliseconds.
 */
export async function prepareRunDatabase(dbPath: string): Promise<void> {
  try {
    await mkdir(dirname(dbPath), { recursive: true, mode: 0o700 });
  } catch (error) {
    throw fileError('create the folder of the job database', dbPath, error);
  }
  await checkDatabase(dbPath, false);
}

/** The job database for a run (prepared by prepareRunDatabase), created if missing; `now` is CliIo.now. */
export async function openForRun(
  dbPath: string,
  processors: Processor[],
  webhooks: BatchRunnerOptions['webhooks'],
  now?: () => number,
): Promise<JobDatabase> {
  const store = await createSqliteStore({ path: dbPath, driver: await cliSqliteDriver() });
  return {
    runner: createBatchRunner({ store, processors, chunkSize: 250, webhooks, ...(now ? { now } : {}) }),
    store,
  };
}
