import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import {
  type BatchRunner,
  type BatchRunnerOptions,
  createBatchRunner,
  createGeoIpProcessor,
  createSqliteStore,
  createVerifyEmailProcessor,
  type Store,
  validateSubmit,
} from '@svc/batch-runner';
import { createVerifier } from '@svc/email-verifier';
import type { Command } from '../command.js';
import { dataDir } from '../data-dir.js';
import { EXIT } from '../exit-codes.js';
import { openCliGeoResolver } from '../geo-data.js';
import { readRecords } from '../input/read-records.js';
import type { CliIo } from '../io.js';
import { createProgress } from '../output/progress.js';
import { printJson } from '../output.js';
import { UsageError } from '../usage-error.js';

/** `svc batch`: run a job in-process on a SQLite file, and read jobs back from it. */
export const batchCommand: Command = {
  name: 'batch',
  summary: 'Run batch jobs of up to 50,000 records on a local SQLite file',
  usage: [
    'run --type verify_email|geo_ip --file <txt|csv> [--out results.ndjson|csv] [--probe] [--db path]\n' +
      '    [--webhook-url U [--webhook-secret S] [--allow-private-webhook]]',
    'status <id> [--db path]',
    'results <id> [--format ndjson|csv] [--db path]',
  ],
  details: `Options:
  --db <path>      the job database (default: $SVC_DATA_DIR/batch.db)
  --probe          verify_email: probe mailboxes over SMTP
  --webhook-url U  POST a signed batch.completed / batch.failed event to U when the job ends
  --webhook-secret S
                   the signing secret (or $SVC_WEBHOOK_SECRET; several, newest first, separated
                   by commas while you rotate); receivers check it with \`svc webhooks verify\`
  --allow-private-webhook
                   allow a webhook URL on a private or loopback address (intranets, testing);
                   refused by default so a job cannot be pointed at internal services
A killed run resumes where it stopped when started again with the same --db: leased chunks
expire and are taken over; finished records are never redone. A webhook that could not be
delivered stays in the database's outbox and is retried (for up to 24 h after the first
attempt) by the next \`svc batch run\` on the same --db with the same secret.`,
  options: {
    type: { type: 'string' },
    file: { type: 'string' },
    out: { type: 'string' },
    db: { type: 'string' },
    format: { type: 'string' },
    probe: { type: 'boolean' },
    'webhook-url': { type: 'string' },
    'webhook-secret': { type: 'string' },
    'allow-private-webhook': { type: 'boolean' },
  },
  async run({ io, flags, values, positionals }) {
    const [action, id, ...extra] = positionals;
    if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(' ')}`, 'batch');
    const dbPath = values.db ? resolve(io.cwd, values.db as string) : join(dataDir(io.env), 'batch.db');
    if (action === 'run') return run(io, flags.json, values, dbPath);
    if (action !== 'status' && action !== 'results')
      throw new UsageError('the subcommands are: run, status, results', 'batch');
    if (!id) throw new UsageError(`batch ${action} needs a job id`, 'batch');
    const { runner, store } = await openReader(dbPath);
    try {
      if (action === 'status') {
        const job = await runner.get(id);
        if (flags.json) printJson(io, { ...job, deliveries: await store.deliveries(id) });
        else {
          io.stdout.write(
            `${job.id} ${job.type} ${job.status}: ${job.processed}/${job.total} processed, ${job.failed} failed ${JSON.stringify(job.counts)}\n`,
          );
          if (job.error) io.stdout.write(`error: ${job.error.message}\n`);
          for (const event of await store.deliveries(id)) io.stdout.write(`${describeDelivery(event)}\n`);
        }
        return EXIT.ok;
      }
      const format = (values.format as string | undefined) ?? 'ndjson';
      if (format !== 'ndjson' && format !== 'csv')
        throw new UsageError('--format must be ndjson or csv', 'batch');
      await pipeline(await runner.export(id, format), io.stdout, { end: false });
      return EXIT.ok;
    } finally {
      await runner.close({ timeoutMs: 0 });
    }
  },
};

/** The job database for reading (status, results): it must exist, and nothing is processed. */
async function openReader(dbPath: string): Promise<{ runner: BatchRunner; store: Store }> {
  const store = await createSqliteStore({ path: dbPath, mustExist: true });
  return { runner: createBatchRunner({ store, processors: [] }), store };
}

/** The job database for a run: created (with its folder) if missing, with the processors. */
async function openRunner(
  io: CliIo,
  dbPath: string,
  options: { geo: boolean; probe: boolean; webhooks?: BatchRunnerOptions['webhooks'] },
): Promise<{ runner: BatchRunner; store: Store }> {
  await mkdir(dirname(dbPath), { recursive: true });
  const store = await createSqliteStore({ path: dbPath });
  const processors = [createVerifyEmailProcessor(createVerifier(), { probe_mailbox: options.probe })];
  if (options.geo) processors.push(createGeoIpProcessor(await openCliGeoResolver(io, [])));
  return {
    runner: createBatchRunner({ store, processors, chunkSize: 250, webhooks: options.webhooks }),
    store,
  };
}

async function run(io: CliIo, json: boolean, values: Record<string, unknown>, dbPath: string) {
  const type = values.type as string | undefined;
  if (type !== 'verify_email' && type !== 'geo_ip')
    throw new UsageError('--type must be verify_email or geo_ip', 'batch');
  if (typeof values.file !== 'string') throw new UsageError('batch run needs --file', 'batch');
  const out = values.out as string | undefined;
  if (out && !/\.(ndjson|jsonl|csv)$/i.test(out))
    throw new UsageError(`--out must end in .ndjson, .jsonl or .csv, got "${out}"`, 'batch');
  const webhook = webhookSettings(io, values);
  const records = await readRecords(values.file, io.cwd);
  // Refuse a bad job before loading processors (the geo data takes seconds on first use).
  validateSubmit({ type, records, webhook_url: webhook.url }, new Set([type]));
  // With a secret, the runner also delivers events earlier runs on this database could not.
  const { runner, store } = await openRunner(io, dbPath, {
    geo: type === 'geo_ip',
    probe: values.probe === true,
    webhooks: webhook.secrets && {
      secrets: webhook.secrets,
      pollIntervalMs: 250,
      ...(webhook.allowPrivate ? { isAllowedAddress: () => true } : {}),
    },
  });
  try {
    const job = await runner.submit({ type, records, webhook_url: webhook.url });
    io.stderr.write(`batch: ${job.id} (${records.length} records) in ${dbPath}\n`);
    runner.start();
    const progress = createProgress(io, job.total, 'batch');
    let current = job;
    while (current.status === 'queued' || current.status === 'running') {
      await new Promise((resolveTick) => setTimeout(resolveTick, 200));
      current = await runner.get(job.id);
      progress.update(current.processed);
    }
    progress.done();
    io.stderr.write(
      `batch: ${current.status}: ${current.processed - current.failed} ok, ${current.failed} failed ${JSON.stringify(current.counts)}\n`,
    );
    if (current.error) io.stderr.write(`batch: ${current.error.message}\n`);
    if (webhook.url) io.stderr.write(`${describeDelivery(await firstAttempt(store, job.id), dbPath)}\n`);
    if (out) {
      const { createWriteStream } = await import('node:fs');
      await pipeline(
        await runner.export(job.id, out.toLowerCase().endsWith('.csv') ? 'csv' : 'ndjson'),
        createWriteStream(resolve(io.cwd, out)),
      );
    }
    if (json) printJson(io, current);
    else io.stdout.write(`${current.id}\n`);
    return current.failed > 0 || current.status !== 'completed' ? EXIT.failure : EXIT.ok;
  } finally {
    await runner.close({ timeoutMs: 1000 });
  }
}

/** The webhook flags, checked before any work starts. */
function webhookSettings(
  io: CliIo,
  values: Record<string, unknown>,
): { url: string | undefined; secrets: string[] | undefined; allowPrivate: boolean } {
  const url = values['webhook-url'] as string | undefined;
  const secretText = (values['webhook-secret'] as string | undefined) ?? io.env.SVC_WEBHOOK_SECRET;
  const secrets = secretText
    ?.split(',')
    .map((secret) => secret.trim())
    .filter(Boolean);
  if (url && !secrets?.length)
    throw new UsageError(
      '--webhook-url needs a signing secret: --webhook-secret or SVC_WEBHOOK_SECRET',
      'batch',
    );
  return {
    url,
    secrets: secrets?.length ? secrets : undefined,
    allowPrivate: values['allow-private-webhook'] === true,
  };
}

type DeliveryView = Awaited<ReturnType<Store['deliveries']>>[number];

/** Waits for the job's event to be tried once (the dispatcher polls; an attempt takes ≤ 15 s). */
async function firstAttempt(store: Store, jobId: string): Promise<DeliveryView | undefined> {
  for (let waited = 0; waited < 20_000; waited += 100) {
    const [event] = await store.deliveries(jobId);
    if (!event || event.attempts.length > 0) return event;
    await new Promise((resolveTick) => setTimeout(resolveTick, 100));
  }
  return (await store.deliveries(jobId))[0];
}

/** One line on an event: its state and last attempt, and what happens next. */
function describeDelivery(event: DeliveryView | undefined, dbPath?: string): string {
  if (!event) return 'webhook: no event was queued';
  const last = event.attempts.at(-1);
  const outcome = last
    ? last.status !== null
      ? `HTTP ${last.status}`
      : (last.error ?? 'no answer')
    : 'not tried';
  const tries = `${event.attempts.length} attempt${event.attempts.length === 1 ? '' : 's'}`;
  if (event.state === 'delivered')
    return `webhook: ${event.type} ${event.eventId} delivered (${outcome}, ${tries})`;
  if (event.state === 'gone') return `webhook: ${event.eventId} refused with 410 Gone; not retried`;
  if (event.state === 'failed')
    return `webhook: ${event.eventId} failed for 24 h (${outcome}, ${tries}); given up`;
  const next = event.nextAttemptAt ? new Date(event.nextAttemptAt).toISOString() : 'soon';
  return `webhook: ${event.eventId} not delivered yet (${outcome}, ${tries}); next attempt ${next}${
    dbPath ? ` by the next \`svc batch run --db ${dbPath}\`` : ''
  }`;
}
