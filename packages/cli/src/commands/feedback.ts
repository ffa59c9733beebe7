import { createReadStream, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { redactedPostgresUrl } from '@svc/core/postgres';
import type { Command } from '../command.js';
import { dataDir } from '../data-dir.js';
import { EXIT } from '../exit-codes.js';
import { printJson } from '../output.js';
import { cliSqliteDriver } from '../sqlite-driver.js';
import { UsageError } from '../usage-error.js';

/** How many events one store write takes during an import. */
const IMPORT_BATCH = 1000;
/** Bad rows named on stderr (the rest are counted). */
const SHOWN_ERRORS = 10;

/** `svc feedback import`: past delivery events from a provider's CSV export, for an account. */
export const feedbackCommand: Command = {
  name: 'feedback',
  summary: "Import past delivery, bounce and complaint events (your email provider's export)",
  usage: ['import <events.csv> --account acct_… [--provider NAME] [--data-dir D | --database-url URL]'],
  details: `Reads a CSV export with a header row: an address column (address, email or recipient), an
event column (event or type: delivered, bounce, deferred, spamreport, unsubscribe, …) and a time
column (at, timestamp or date: ISO 8601 or Unix seconds); optional id, provider, bounce_type and
diagnostic (or reason). Events are recorded for the account the way svc serve records its
webhooks (a file imported twice is stored once), and live verifications of that account then
carry their history. Opens, clicks and other rows that say nothing about a mailbox are skipped;
bad rows are named by line and skipped (exit 1 if any).
  --data-dir D       the svc serve data directory holding feedback.db (default as svc serve's:
                     $SVC_DATA_DIR, else $XDG_DATA_HOME/svc, else ~/.local/share/svc)
  --database-url U   the PostgreSQL database of a scaled-out svc serve (default $SVC_DATABASE_URL)`,
  options: {
    account: { type: 'string' },
    provider: { type: 'string' },
    'data-dir': { type: 'string' },
    'database-url': { type: 'string' },
  },
  async run({ io, flags, values, positionals }) {
    const [sub, file, ...rest] = positionals;
    if (sub !== 'import' || !file || rest.length > 0)
      throw new UsageError('usage: svc feedback import <events.csv> --account acct_…', 'feedback');
    const account = values.account as string | undefined;
    if (!account || !/^acct_[a-z0-9]{1,64}$/.test(account)) {
      throw new UsageError(
        'give the account the events belong to with --account acct_… (its id in svc accounts list)',
        'feedback',
      );
    }
    const path = resolve(io.cwd, file);
    if (!existsSync(path)) throw new UsageError(`no such file: ${file}`, 'feedback');
    const databaseUrl = (values['database-url'] as string | undefined) ?? io.env.SVC_DATABASE_URL;
    const { createPostgresFeedbackStore, createSqliteFeedbackStore, readFeedbackCsv, recordedEvent } =
      await import('@svc/feedback');
    const storePath = join(
      resolve(io.cwd, (values['data-dir'] as string | undefined) ?? dataDir(io)),
      'feedback.db',
    );
    const store =
      databaseUrl && values['data-dir'] === undefined
        ? await createPostgresFeedbackStore({ connectionString: databaseUrl })
        : await createSqliteFeedbackStore({ path: storePath, driver: await cliSqliteDriver() });
    const summary = { read: 0, stored: 0, duplicates: 0, skipped: 0, errors: 0 };
    const errors: string[] = [];
    try {
      const lines = createInterface({
        input: createReadStream(path, 'utf8'),
        crlfDelay: Number.POSITIVE_INFINITY,
      });
      let pending: ReturnType<typeof recordedEvent>[] = [];
      const flush = async () => {
        if (pending.length === 0) return;
        const outcome = await store.record(account, pending);
        summary.stored += outcome.stored;
        summary.duplicates += outcome.duplicates;
        pending = [];
      };
      const options = typeof values.provider === 'string' ? { provider: values.provider } : {};
      try {
        for await (const row of readFeedbackCsv(lines, options)) {
          if ('event' in row) {
            summary.read += 1;
            pending.push(recordedEvent(row.event));
            if (pending.length >= IMPORT_BATCH) await flush();
          } else if ('skipped' in row) summary.skipped += 1;
          else {
            summary.errors += 1;
            if (errors.length < SHOWN_ERRORS) errors.push(`line ${row.line}: ${row.error}`);
          }
        }
      } catch (error) {
        if (error instanceof TypeError) throw new UsageError(`${file}: ${error.message}`, 'feedback');
        throw error;
      }
      await flush();
    } finally {
      await store.close();
    }
    for (const line of errors) io.stderr.write(`svc feedback: ${line}\n`);
    if (summary.errors > errors.length)
      io.stderr.write(`svc feedback: … and ${summary.errors - errors.length} more bad rows\n`);
    const where =
      databaseUrl && values['data-dir'] === undefined ? redactedPostgresUrl(databaseUrl) : storePath;
    if (flags.json) printJson(io, { ...summary, account, store: where });
    else {
      io.stdout.write(
        `imported for ${account}: ${summary.stored} events stored, ${summary.duplicates} already recorded, ${summary.skipped} rows skipped (opens, clicks…), ${summary.errors} bad rows (in ${where})\n`,
      );
    }
    return summary.errors > 0 ? EXIT.failure : EXIT.ok;
  },
};
