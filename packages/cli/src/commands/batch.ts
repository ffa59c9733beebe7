import { join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import {
  type BatchRunner,
  createBatchRunner,
  createGeoIpProcessor,
  createSqliteStore,
  createVerifyEmailProcessor,
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
    'run --type verify_email|geo_ip --file <txt|csv> [--out results.ndjson|csv] [--probe] [--db path]',
    'status <id> [--db path]',
    'results <id> [--format ndjson|csv] [--db path]',
  ],
  details: `Options:
  --db <path>      the job database (default: $SVC_DATA_DIR/batch.db)
  --probe          verify_email: probe mailboxes over SMTP
A killed run resumes where it stopped when started again with the same --db: leased chunks
expire and are taken over; finished records are never redone.`,
  options: {
    type: { type: 'string' },
    file: { type: 'string' },
    out: { type: 'string' },
    db: { type: 'string' },
    format: { type: 'string' },
    probe: { type: 'boolean' },
  },
  async run({ io, flags, values, positionals }) {
    const [action, id, ...extra] = positionals;
    if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(' ')}`, 'batch');
    const dbPath = values.db ? resolve(io.cwd, values.db as string) : join(dataDir(io.env), 'batch.db');
    if (action === 'run') return run(io, flags.json, values, dbPath);
    if (action !== 'status' && action !== 'results')
      throw new UsageError('the subcommands are: run, status, results', 'batch');
    if (!id) throw new UsageError(`batch ${action} needs a job id`, 'batch');
    const runner = await openRunner(io, dbPath, false, false);
    try {
      if (action === 'status') {
        const job = await runner.get(id);
        if (flags.json) printJson(io, job);
        else
          io.stdout.write(
            `${job.id} ${job.type} ${job.status}: ${job.processed}/${job.total} processed, ${job.failed} failed ${JSON.stringify(job.counts)}\n`,
          );
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

async function openRunner(io: CliIo, dbPath: string, withGeo: boolean, probe: boolean): Promise<BatchRunner> {
  const store = await createSqliteStore({ path: dbPath });
  const processors = [createVerifyEmailProcessor(createVerifier(), { probe_mailbox: probe })];
  if (withGeo) processors.push(createGeoIpProcessor(await openCliGeoResolver(io, [])));
  return createBatchRunner({ store, processors, chunkSize: 250 });
}

async function run(io: CliIo, json: boolean, values: Record<string, unknown>, dbPath: string) {
  const type = values.type as string | undefined;
  if (type !== 'verify_email' && type !== 'geo_ip')
    throw new UsageError('--type must be verify_email or geo_ip', 'batch');
  if (typeof values.file !== 'string') throw new UsageError('batch run needs --file', 'batch');
  const out = values.out as string | undefined;
  if (out && !/\.(ndjson|jsonl|csv)$/i.test(out))
    throw new UsageError(`--out must end in .ndjson, .jsonl or .csv, got "${out}"`, 'batch');
  const records = await readRecords(values.file, io.cwd);
  const runner = await openRunner(io, dbPath, type === 'geo_ip', values.probe === true);
  try {
    const job = await runner.submit({ type, records });
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
    if (out) {
      const { createWriteStream } = await import('node:fs');
      await pipeline(
        await runner.export(job.id, out.toLowerCase().endsWith('.csv') ? 'csv' : 'ndjson'),
        createWriteStream(resolve(io.cwd, out)),
      );
    }
    if (json) printJson(io, current);
    else io.stdout.write(`${current.id}\n`);
    return current.failed > 0 ? EXIT.failure : EXIT.ok;
  } finally {
    await runner.close({ timeoutMs: 1000 });
  }
}
