import { validateSubmit } from '@svc/batch-runner';
import { MAX_BATCH_RECORDS, ServiceError } from '@svc/core';
import { EXIT, type ExitCode } from '../../exit-codes.js';
import { readRecords } from '../../input/read-records.js';
import type { CliIo } from '../../io.js';
import { unverifiedMessage } from '../../output/dns-warning.js';
import { createProgress } from '../../output/progress.js';
import { prepareOutput, writeResultFile } from '../../output/result-writer.js';
import { printJson } from '../../output.js';
import { UsageError } from '../../usage-error.js';
import { openForRun, prepareRunDatabase } from './database.js';
import { describeDelivery, firstAttempt } from './deliveries.js';
import { checkRunSettings, openProcessor, runType } from './processors.js';
import { deliveryOptions, webhookSettings } from './webhook-flags.js';

const count = (value: number) => value.toLocaleString('en-US');

/** `svc batch run`: every flag and file is checked before the job is created; then it runs here. */
export async function runJob(
  io: CliIo,
  json: boolean,
  values: Record<string, unknown>,
  dbPath: string,
): Promise<ExitCode> {
  const type = runType(values);
  if (typeof values.file !== 'string') throw new UsageError('batch run needs --file', 'batch');
  checkRunSettings(type, values);
  const out = typeof values.out === 'string' ? await prepareOutput(values.out, io.cwd, 'batch') : undefined;
  const webhook = await webhookSettings(io, values);
  const records = await readRecords(values.file, io.cwd);
  if (records.length > MAX_BATCH_RECORDS) {
    throw new UsageError(
      `${values.file} has ${count(records.length)} records; a batch job takes at most ${count(MAX_BATCH_RECORDS)} (split the file)`,
      'batch',
      false,
    );
  }
  if (records.length === 0) throw new UsageError(`${values.file} has no records`, 'batch', false);
  // Refuse a bad job before loading processors (the geo data takes seconds on first use).
  validateSubmit({ type, records, webhook_url: webhook.url }, new Set([type]));
  await prepareRunDatabase(dbPath);
  const opened = await openProcessor(type, { io, values, dbPath });
  // With a secret, the runner also delivers events earlier runs on this database could not.
  const { runner, store } = await openForRun(
    dbPath,
    [opened.processor],
    deliveryOptions(webhook.secrets, values, io.now),
    io.now,
  ).catch(async (error: unknown) => {
    await opened.close();
    throw error;
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
    // Records left without a verdict because the resolver failed its canaries: not a result to act on.
    const unverified = unverifiedMessage(
      current.counts.dns_unavailable ?? 0,
      current.total,
      opened.resolverHealth?.() ?? null,
    );
    if (unverified) io.stderr.write(`batch: ${unverified}\n`);
    // Enrichment records no source could be reached for: no verdict either, worth running again.
    const unreached = current.counts.all_adapters_failed ?? 0;
    if (unreached > 0)
      io.stderr.write(
        `batch: ${unreached} of ${current.total} records were not looked up: no enrichment source could be reached (all_adapters_failed); run them again later\n`,
      );
    if (webhook.url) io.stderr.write(`${describeDelivery(await firstAttempt(store, job.id), dbPath)}\n`);
    if (out) {
      try {
        await writeResultFile(out, await runner.export(job.id, out.format));
      } catch (error) {
        // The results are safe in the database; say how to get them instead of losing the run.
        const message = error instanceof Error ? error.message : String(error);
        throw new ServiceError(
          ServiceError.is(error) ? error.code : 'internal_error',
          `${message}; the results are kept in the job database: svc batch results ${job.id} --db ${dbPath} --format ${out.format} > results.${out.format}`,
          { cause: error },
        );
      }
    }
    if (json) printJson(io, current);
    else io.stdout.write(`${current.id}\n`);
    return current.failed > 0 || current.status !== 'completed' || unverified ? EXIT.failure : EXIT.ok;
  } finally {
    await runner.close({ timeoutMs: 1000 });
    await opened.close();
  }
}
