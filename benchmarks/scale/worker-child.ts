// Table 2 of the scale suite: one worker process on Postgres + BullMQ, as `svc serve --role
// worker` runs one but with the waiting processor. The parent runs this file with
// `--scale-worker <databaseUrl> <schema> <redisUrl> <queue>`, waits for its `ready` line, and
// stops it with SIGTERM.
import { createBatchRunner, createBullMqDispatcher, createPostgresStore } from '@svc/batch-runner';
import { waitingProcessor } from './job.js';

/**
 * Chunks one worker processes at a time: one, its 250 records one after another, as a worker
 * whose upstream answers one request at a time would. So one worker is far from busy (about
 * 1 % of a core) and the speed-up measures chunks spread over processes, not a CPU limit.
 */
export const WORKER_CONCURRENCY = 1;

async function main(databaseUrl: string, schema: string, redisUrl: string, queueName: string): Promise<void> {
  const store = await createPostgresStore({ connectionString: databaseUrl, schema, poolSize: 2 });
  const dispatcher = createBullMqDispatcher({ store, connection: redisUrl, queueName });
  const runner = createBatchRunner({
    store,
    dispatcher,
    processors: [waitingProcessor],
    chunkSize: 250,
    concurrency: WORKER_CONCURRENCY,
  });
  runner.start();
  process.once('SIGTERM', async () => {
    await runner.close();
    await dispatcher.close();
    await store.close();
    process.exit(0);
  });
  process.stdout.write('ready\n');
}

if (process.argv[2] === '--scale-worker') {
  const [databaseUrl, schema, redisUrl, queueName] = process.argv.slice(3) as [
    string,
    string,
    string,
    string,
  ];
  await main(databaseUrl, schema, redisUrl, queueName);
}
