import { pipeline } from 'node:stream/promises';
import { createWebhookDispatcher, type JobRecord } from '@svc/batch-runner';
import { isTerminalBatchStatus, ServiceError } from '@svc/core';
import { EXIT, type ExitCode } from '../../exit-codes.js';
import type { CliIo } from '../../io.js';
import { renderTable } from '../../output/table.js';
import { printJson } from '../../output.js';
import { UsageError } from '../../usage-error.js';
import { openExisting } from './database.js';
import { type DeliveryView, deliveryJson, describeDelivery } from './deliveries.js';
import { deliveryOptions, webhookSecrets } from './webhook-flags.js';

/** Options of the reading and managing subcommands. */
interface ManageContext {
  io: CliIo;
  json: boolean;
  values: Record<string, unknown>;
  dbPath: string;
}

/** `svc batch status <id>`: the job and its webhook events. */
export async function status({ io, json, dbPath }: ManageContext, id: string): Promise<ExitCode> {
  const { runner, store } = await openExisting(dbPath);
  try {
    const job = await runner.get(id);
    const events = await store.deliveries(id);
    if (json) printJson(io, { ...job, deliveries: events.map(deliveryJson) });
    else {
      io.stdout.write(
        `${job.id} ${job.type} ${job.status}: ${job.processed}/${job.total} processed, ${job.failed} failed ${JSON.stringify(job.counts)}\n`,
      );
      if (job.error) io.stdout.write(`error: ${job.error.message}\n`);
      for (const event of events) io.stdout.write(`${describeDelivery(event)}\n`);
    }
    return EXIT.ok;
  } finally {
    await runner.close({ timeoutMs: 0 });
  }
}

/** `svc batch results <id>`: the results as NDJSON or CSV on stdout. */
export async function results({ io, values, dbPath }: ManageContext, id: string): Promise<ExitCode> {
  const format = (values.format as string | undefined) ?? 'ndjson';
  if (format !== 'ndjson' && format !== 'csv')
    throw new UsageError('--format must be ndjson or csv', 'batch');
  const { runner } = await openExisting(dbPath);
  try {
    await pipeline(await runner.export(id, format), io.stdout, { end: false });
    return EXIT.ok;
  } finally {
    await runner.close({ timeoutMs: 0 });
  }
}

/** `svc batch list`: jobs newest first, one page (--limit, --cursor from the previous page). */
export async function list({ io, json, values, dbPath }: ManageContext): Promise<ExitCode> {
  const limit = values.limit === undefined ? 20 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw new UsageError(`--limit must be a whole number from 1 to 100, got "${values.limit}"`, 'batch');
  const { runner } = await openExisting(dbPath);
  try {
    const page = await runner.list({ limit, cursor: (values.cursor as string | undefined) ?? null });
    if (json) printJson(io, page);
    else {
      io.stdout.write(
        renderTable(
          ['id', 'type', 'status', 'processed', 'failed', 'created_at'],
          page.data.map((job) => [
            job.id,
            job.type,
            job.status,
            `${job.processed}/${job.total}`,
            String(job.failed),
            job.created_at,
          ]),
        ),
      );
      if (page.next_cursor) io.stdout.write(`more: svc batch list --cursor ${page.next_cursor}\n`);
    }
    return EXIT.ok;
  } finally {
    await runner.close({ timeoutMs: 0 });
  }
}

/**
 * `svc batch cancel <id>`: a queued or running job stops (a run in another process sees it at its
 * next poll and finishes without the rest). A finished job cannot be cancelled: exit 1.
 */
export async function cancel({ io, json, dbPath }: ManageContext, id: string): Promise<ExitCode> {
  const { runner, store } = await openExisting(dbPath);
  try {
    const before = await runner.get(id);
    if (isTerminalBatchStatus(before.status)) {
      throw new ServiceError('invalid_request', `${id} is already ${before.status}; nothing to cancel`);
    }
    const job = await runner.cancel(id);
    if (json) printJson(io, job);
    else io.stdout.write(`${job.id} cancelled: ${job.processed}/${job.total} processed\n`);
    if (job.webhook_url && (await store.deliveries(id)).length > 0)
      io.stderr.write(
        `webhook: the batch.cancelled event waits in the outbox; send it with \`svc batch deliver --db ${dbPath}\`\n`,
      );
    return EXIT.ok;
  } finally {
    await runner.close({ timeoutMs: 0 });
  }
}

/**
 * `svc batch deliver`: sends the webhook events that are due (those earlier runs could not
 * deliver, or of cancelled jobs) without running a job. Exit 1 when any attempt failed.
 */
export async function deliver({ io, json, values, dbPath }: ManageContext): Promise<ExitCode> {
  const secrets = webhookSecrets(io, values);
  if (!secrets)
    throw new UsageError(
      'batch deliver needs the signing secret: --webhook-secret or SVC_WEBHOOK_SECRET',
      'batch',
    );
  const { runner, store } = await openExisting(dbPath);
  try {
    const now = io.now ?? Date.now;
    const started = now();
    const dispatcher = createWebhookDispatcher({ ...deliveryOptions(secrets, values, now), secrets, store });
    const attempted = await dispatcher.deliverDue();
    await dispatcher.close();
    const tried: Array<{ jobId: string; event: DeliveryView }> = [];
    let waiting = 0;
    for await (const job of allJobs(store)) {
      for (const event of await store.deliveries(job.id)) {
        if (event.attempts.some((attempt) => attempt.at >= started)) tried.push({ jobId: job.id, event });
        else if (event.state === 'pending') waiting++;
      }
    }
    const undelivered = tried.filter(({ event }) => event.state !== 'delivered').length;
    if (json)
      printJson(io, {
        attempted,
        waiting,
        deliveries: tried.map(({ jobId, event }) => ({ job_id: jobId, ...deliveryJson(event) })),
      });
    else {
      for (const { jobId, event } of tried) io.stdout.write(`${jobId} ${describeDelivery(event)}\n`);
      io.stderr.write(
        `webhook: ${attempted} attempt${attempted === 1 ? '' : 's'}, ${tried.length - undelivered} delivered; ${waiting} event${waiting === 1 ? '' : 's'} not due yet\n`,
      );
    }
    return undelivered > 0 ? EXIT.failure : EXIT.ok;
  } finally {
    await runner.close({ timeoutMs: 0 });
  }
}

/** Every job of the store, page by page. */
async function* allJobs(store: Awaited<ReturnType<typeof openExisting>>['store']): AsyncGenerator<JobRecord> {
  let cursor: string | null = null;
  do {
    const page = await store.listJobs({ cursor, limit: 100 });
    yield* page.data;
    cursor = page.next_cursor;
  } while (cursor);
}
