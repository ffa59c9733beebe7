// A worker process for the crash-safety test: runs (or resumes) one 50,000-record job on a
// SQLite file and delivers its completion webhook. The test SIGKILLs it while it commits records.
import { setImmediate as tick } from 'node:timers/promises';
import { createBatchRunner, createSqliteStore, createWebhookDispatcher } from '@svc/batch-runner';

const [dbPath, webhookUrl, secret] = process.argv.slice(2);
const store = await createSqliteStore({ path: dbPath });
const processor = {
  type: 'geo_ip',
  async process(records, { signal }) {
    const outcomes = [];
    // An I/O wait per chunk, long enough that the job outlives the test's six random kills.
    await new Promise((resolve) => setTimeout(resolve, 60));
    for (const { index, input } of records) {
      await tick(); // real asynchronous work between records
      signal.throwIfAborted();
      outcomes.push(
        index % 97 === 0
          ? { index, ok: false, error: { code: 'bad', message: `${input} refused` } }
          : { index, ok: true, result: { input }, countKey: index % 2 ? 'odd' : 'even' },
      );
    }
    return outcomes;
  },
};
const runner = createBatchRunner({
  store,
  processors: [processor],
  chunkSize: 250,
  leaseMs: 400,
  concurrency: 2,
  pollIntervalMs: 20,
});
// Short leases, so a restarted process takes over a killed one's work quickly.
const dispatcher = createWebhookDispatcher({
  store,
  secrets: [secret],
  isAllowedAddress: (ip) => ip.startsWith('127.'),
  pollIntervalMs: 50,
  timeoutMs: 1000,
  leaseMs: 2000,
});
const records = Array.from(
  { length: 50_000 },
  (_, index) => `10.${index >> 16}.${(index >> 8) & 255}.${index & 255}`,
);
const job = await runner.submit({
  type: 'geo_ip',
  records,
  webhook_url: webhookUrl,
  idempotency_key: 'crash-test',
});
runner.start();
dispatcher.start();
for (;;) {
  const current = await runner.get(job.id);
  const [event] = await store.deliveries(job.id);
  if (current.status === 'completed' && event?.state === 'delivered') break;
  await new Promise((resolve) => setTimeout(resolve, 50));
}
process.stdout.write(`${job.id}\n`);
await dispatcher.close();
await runner.close({ timeoutMs: 1000 });
await store.close();
