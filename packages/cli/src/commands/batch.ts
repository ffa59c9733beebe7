import { join, resolve } from 'node:path';
import { JOB_TYPE_IDS, JOB_TYPES } from '@svc/core';
import type { Command } from '../command.js';
import { dataDir } from '../data-dir.js';
import { namingStore } from '../not-found.js';
import { UsageError } from '../usage-error.js';
import { VERIFIER_FLAGS, VERIFIER_FLAGS_HELP } from '../verifier-flags.js';
import { cancel, deliver, list, results, status } from './batch/manage.js';
import { ENRICH_FLAGS, typesTaking } from './batch/processors.js';
import { runJob } from './batch/run.js';
import { ENRICH_SETUP_HELP } from './enrich/setup.js';

const WITH_ID = { status, results, cancel } as const;

/** `svc batch`: run a job in-process on a SQLite file, and read and manage jobs in it. */
export const batchCommand: Command = {
  name: 'batch',
  summary: 'Run batch jobs of up to 50,000 records on a local SQLite file',
  usage: [
    `run --type ${JOB_TYPE_IDS.join('|')}\n` +
      '    --file <txt|csv> [--out results.ndjson|csv] [--db path]\n' +
      '    [--webhook-url U [--webhook-secret S] [--allow-private-webhook]] [verifier or enricher flags]',
    'status <id> [--db path]',
    'results <id> [--format ndjson|csv] [--db path]',
    'list [--limit 20] [--cursor C] [--db path]',
    'cancel <id> [--db path]',
    'deliver [--webhook-secret S] [--allow-private-webhook] [--db path]',
  ],
  details: `Job types (--type), one record per line or the first CSV column:
${JOB_TYPE_IDS.map((id) => `  ${id.padEnd(16)} ${JOB_TYPES[id].label}: each record is ${JOB_TYPES[id].input}`).join('\n')}
Options:
  --db <path>      the job database (default: batch.db in svc serve's data dir: $SVC_DATA_DIR,
                   else $XDG_DATA_HOME/svc, else ~/.local/share/svc)
  --out <path>     run: also write the results to .ndjson or .csv (checked before the job starts;
                   created private, 0600)
  --webhook-url U  POST a signed batch.completed / batch.failed event to U when the job ends;
                   a URL on a private or reserved address is refused before the job runs
  --webhook-secret S
                   the signing secret (or $SVC_WEBHOOK_SECRET; several, newest first, separated
                   by commas while you rotate); receivers check it with \`svc webhooks verify\`
  --allow-private-webhook
                   allow a webhook URL on a private or loopback address (intranets, testing);
                   refused by default so a job cannot be pointed at internal services
Verifier flags (run --type ${typesTaking('verifier')}):
${VERIFIER_FLAGS_HELP}
  --fresh             probe again addresses whose probed result the --db file still holds
Enricher flags (run --type ${typesTaking('enricher')}), as for svc enrich:
${ENRICH_SETUP_HELP}
A probed result is kept in the --db file (7 days deliverable, 30 days undeliverable, 1 day risky,
5 minutes unknown): a later run with --probe on the same file answers those addresses without
probing again (their results carry cached_at), unless --fresh.
Exit 1 when a record failed, the job did not complete, or a verify_email record ended unknown /
dns_unavailable (the resolver failed its canary check: no verdict; the summary says how many).
A run takes at most 50,000 records. A killed run resumes where it stopped when started again
with the same --db: leased chunks expire and are taken over; finished records are never redone.
A webhook that could not be delivered stays in the database's outbox and is retried (for up to
24 h after the first attempt) by \`svc batch deliver\` or the next \`svc batch run\` on the same
--db with the same secret.`,
  options: {
    ...VERIFIER_FLAGS,
    ...ENRICH_FLAGS,
    type: { type: 'string' },
    file: { type: 'string' },
    out: { type: 'string' },
    db: { type: 'string' },
    format: { type: 'string' },
    limit: { type: 'string' },
    cursor: { type: 'string' },
    'webhook-url': { type: 'string' },
    'webhook-secret': { type: 'string' },
    'allow-private-webhook': { type: 'boolean' },
    fresh: { type: 'boolean' },
  },
  async run({ io, flags, values, positionals }) {
    const [action, id, ...extra] = positionals;
    if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(' ')}`, 'batch');
    const dbPath = values.db ? resolve(io.cwd, values.db as string) : join(dataDir(io), 'batch.db');
    const context = { io, json: flags.json, values, dbPath };
    if (action === 'run') return runJob(io, flags.json, values, dbPath);
    if (action === 'list' || action === 'deliver') {
      if (id) throw new UsageError(`unexpected arguments: ${id}`, 'batch');
      return action === 'list' ? list(context) : deliver(context);
    }
    if (action !== 'status' && action !== 'results' && action !== 'cancel')
      throw new UsageError('the subcommands are: run, status, results, list, cancel, deliver', 'batch');
    if (!id) throw new UsageError(`batch ${action} needs a job id`, 'batch');
    // A job id that is not there: the answer names the database searched (a wrong data dir shows).
    return WITH_ID[action](context, id).catch((error: unknown) => {
      throw namingStore(error, dbPath);
    });
  },
};
