import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CliIo } from '../../io.js';
import { printJson } from '../../output.js';
import { cliSqliteDriver } from '../../sqlite-driver.js';
import { UsageError } from '../../usage-error.js';
import type { EnrichPaths } from './paths.js';
import { openCliEnricher } from './setup.js';

/**
 * `svc enrich erase --email E | --profile-url U | --domain D --name N`: purges every cached
 * outcome about the person, puts them on the suppression list (no later lookup reaches an
 * adapter), and removes them from the dataset index when it holds them.
 */
export async function erase(
  io: CliIo,
  json: boolean,
  values: Record<string, unknown>,
  args: string[],
  paths: EnrichPaths,
): Promise<0> {
  if (args.length > 0) throw new UsageError(`unexpected arguments: ${args.join(' ')}`, 'enrich');
  const email = values.email as string | undefined;
  const profileUrl = values['profile-url'] as string | undefined;
  const domain = values.domain as string | undefined;
  const name = values.name as string | undefined;
  const forms = [email !== undefined, profileUrl !== undefined, domain !== undefined || name !== undefined];
  if (forms.filter(Boolean).length !== 1) {
    throw new UsageError('erase takes one of --email, --profile-url, or --domain with --name', 'enrich');
  }
  const query =
    email !== undefined
      ? { email }
      : profileUrl !== undefined
        ? { profile_url: profileUrl }
        : { domain, full_name: name };
  // Only the cache and suppression list are needed: no adapter is asked anything.
  const cli = await openCliEnricher(io, { ...values, adapters: 'dns' }, paths);
  let result: { cache_entries_purged: number; suppressed: true };
  try {
    result = await cli.enricher.erase(query);
  } finally {
    await cli.close();
  }
  let removed = 0;
  if (existsSync(paths.dataset)) {
    const { normalisePersonQuery, openDatasetIndex } = await import('@svc/enricher');
    const index = await openDatasetIndex({ path: paths.dataset, driver: await cliSqliteDriver() });
    try {
      removed = index.erasePerson(normalisePersonQuery(query));
    } finally {
      index.close();
    }
  }
  // The person's delivery history (svc feedback, the server's /v2/feedback) goes with them.
  let feedbackRemoved = 0;
  if (email !== undefined) feedbackRemoved = await eraseFeedback(email, paths);
  const summary = { ...result, dataset_rows_removed: removed, feedback_events_removed: feedbackRemoved };
  if (json) printJson(io, summary);
  else {
    io.stdout.write(
      `erased: ${summary.cache_entries_purged} cached results purged, ${removed} dataset rows removed, ${feedbackRemoved} delivery events removed; suppressed from now on\n`,
    );
  }
  return 0;
}

/** Removes an address's delivery feedback in every account, where `svc serve` keeps it. */
async function eraseFeedback(email: string, paths: EnrichPaths): Promise<number> {
  const { createPostgresFeedbackStore, createSqliteFeedbackStore, normaliseFeedbackAddress } = await import(
    '@svc/feedback'
  );
  const address = normaliseFeedbackAddress(email);
  if (address === null) return 0;
  const file = join(dirname(paths.cache), 'feedback.db');
  if (!paths.databaseUrl && !existsSync(file)) return 0;
  const store = paths.databaseUrl
    ? await createPostgresFeedbackStore({ connectionString: paths.databaseUrl })
    : await createSqliteFeedbackStore({ path: file, driver: await cliSqliteDriver() });
  try {
    return await store.eraseEverywhere(address);
  } finally {
    await store.close();
  }
}
