import { ServiceError } from '@svc/core';
import {
  adapterOutcomes,
  type EnrichedCompany,
  type EnrichedPerson,
  type EnrichOutcome,
  type MissReason,
} from '@svc/enricher';
import { readRecords } from '../../input/read-records.js';
import type { CliIo } from '../../io.js';
import { createProgress } from '../../output/progress.js';
import { openResultWriter, prepareOutput } from '../../output/result-writer.js';
import { printJson } from '../../output.js';
import { UsageError } from '../../usage-error.js';
import type { EnrichPaths } from './paths.js';
import { openCliEnricher } from './setup.js';

/** Most records one `--file` run takes, as `svc verify` (larger lists: a batch job). */
const MAX_FILE_RECORDS = 10_000;

type Kind = 'contact' | 'company';

/**
 * One printed result: the input as given, and the match (null: no match) with the outcome (`match`
 * or why not, as the server's `X-Enrichment-Outcome`) and how each adapter answered; or the error.
 */
type Row =
  | {
      input: string;
      person?: EnrichedPerson | null;
      company?: EnrichedCompany | null;
      suppressed: boolean;
      outcome: 'match' | MissReason;
      adapters: Record<string, string>;
      /** A contact match: how each company adapter answered the lookup of the person's company domain. */
      company_adapters?: Record<string, string>;
    }
  | { input: string; error: { code: string; message: string } };

/** The contact query the flags describe (exactly one form). */
function contactQuery(values: Record<string, unknown>): Record<string, string> {
  const email = values.email as string | undefined;
  const domain = values.domain as string | undefined;
  const name = values.name as string | undefined;
  const profileUrl = values['profile-url'] as string | undefined;
  const forms = [email !== undefined, domain !== undefined || name !== undefined, profileUrl !== undefined];
  if (forms.filter(Boolean).length !== 1) {
    throw new UsageError('give one of --email, --domain with --name, or --profile-url (or --file)', 'enrich');
  }
  if (email !== undefined) return { email };
  if (profileUrl !== undefined) return { profile_url: profileUrl };
  if (domain === undefined || name === undefined)
    throw new UsageError('--domain and --name go together', 'enrich');
  return { domain, full_name: name };
}

/** The contact or company query each input stands for; `--file` records are emails (contact) or domains. */
async function inputs(kind: Kind, io: CliIo, values: Record<string, unknown>, args: string[]) {
  const file = values.file as string | undefined;
  const hasQueryFlags = ['email', 'domain', 'name', 'profile-url'].some((flag) => values[flag] !== undefined);
  if (file) {
    if (args.length > 0 || hasQueryFlags) throw new UsageError('give --file or a query, not both', 'enrich');
    const records = await readRecords(file, io.cwd);
    if (records.length > MAX_FILE_RECORDS) {
      throw new UsageError(
        `${file} has ${records.length.toLocaleString('en')} records; svc enrich takes at most ${MAX_FILE_RECORDS.toLocaleString('en')} (split the file)`,
        'enrich',
        false,
      );
    }
    return records.map((record) => ({
      input: record,
      query: kind === 'contact' ? { email: record } : { domain: record },
    }));
  }
  if (values.out) throw new UsageError('--out needs --file', 'enrich');
  if (kind === 'company') {
    if (hasQueryFlags)
      throw new UsageError('company takes domains as arguments: svc enrich company acme.com', 'enrich');
    if (args.length === 0) throw new UsageError('give at least one domain or --file', 'enrich');
    return args.map((domain) => ({ input: domain, query: { domain } }));
  }
  if (args.length > 0) throw new UsageError(`unexpected arguments: ${args.join(' ')}`, 'enrich');
  const query = contactQuery(values);
  return [{ input: Object.values(query).join(' '), query }];
}

/** `svc enrich contact|company`: look up, print (or write `--out`), exit 1 if any input was refused. */
export async function lookup(
  kind: Kind,
  io: CliIo,
  json: boolean,
  values: Record<string, unknown>,
  args: string[],
  paths: EnrichPaths,
): Promise<0 | 1> {
  const items = await inputs(kind, io, values, args);
  const target = values.out ? await prepareOutput(values.out as string, io.cwd, 'enrich') : undefined;
  const cli = await openCliEnricher(io, values, paths);
  const field = kind === 'contact' ? 'person' : 'company';
  const writer = target
    ? await openResultWriter(target, {
        leading: ['input', 'error_code', 'error_message', 'suppressed', 'outcome'],
      })
    : undefined;
  const progress = values.file ? createProgress(io, items.length, 'enrich') : undefined;
  const rows: Row[] = [];
  let matched = 0;
  let refused = 0;
  let unreached = 0;
  try {
    for (const [position, item] of items.entries()) {
      let row: Row;
      try {
        const outcome: EnrichOutcome<EnrichedPerson | EnrichedCompany> =
          kind === 'contact'
            ? await cli.enricher.enrichContact(item.query)
            : await cli.enricher.enrichCompany(item.query);
        if (outcome.match) matched++;
        // Nothing was looked at: no verdict, counted apart from the misses.
        if (outcome.miss === 'all_adapters_failed') unreached++;
        row = {
          input: item.input,
          [field]: outcome.match,
          suppressed: outcome.suppressed,
          outcome: outcome.match ? 'match' : (outcome.miss ?? 'no_match'),
          adapters: adapterOutcomes(outcome.adapters),
          ...(outcome.companyAdapters ? { company_adapters: adapterOutcomes(outcome.companyAdapters) } : {}),
        };
      } catch (error) {
        if (!ServiceError.is(error)) throw error;
        refused++;
        row = { input: item.input, error: { code: error.code, message: error.message } };
      }
      if (writer)
        writer.write(
          target?.format === 'csv' ? csvRow(row, field) : (row as unknown as Record<string, unknown>),
        );
      else rows.push(row);
      progress?.update(position + 1);
    }
  } finally {
    progress?.done();
    await cli.close();
  }
  await writer?.close();
  const missed = items.length - matched - refused - unreached;
  // A miss names the dataset it searched, or says there was none where it looked.
  if (missed > 0 && cli.dataset === 'searched')
    io.stderr.write(`enrich: searched the dataset ${paths.dataset}\n`);
  if (missed > 0 && cli.dataset === 'missing')
    io.stderr.write(
      `enrich: no dataset at ${paths.dataset} (svc enrich import makes one; --dataset names another)\n`,
    );
  const summary = `enrich: ${matched} matched, ${missed} no match, ${refused} refused, ${unreached} not reached (adapters: ${cli.adapters.join(', ') || 'none'})`;
  if (writer) io.stderr.write(`${summary} → ${values.out}\n`);
  else if (json) printJson(io, rows.length === 1 && !values.file ? rows[0] : rows);
  else {
    io.stdout.write(rows.map((row) => text(row, field)).join('\n'));
    if (values.file) io.stderr.write(`${summary}\n`);
  }
  return refused > 0 ? 1 : 0;
}

/** A CSV row: input and error columns first, then the match's fields (`person.title`, …). */
function csvRow(row: Row, field: 'person' | 'company'): Record<string, unknown> {
  if ('error' in row)
    return {
      input: row.input,
      error_code: row.error.code,
      error_message: row.error.message,
      suppressed: '',
      outcome: '',
    };
  const match = row[field];
  // Sources are per-field provenance: one column each would swamp the sheet; keep them as JSON.
  const { sources, ...fields } = (match ?? {}) as Record<string, unknown>;
  return {
    input: row.input,
    error_code: '',
    error_message: '',
    suppressed: row.suppressed,
    outcome: row.outcome,
    [field]: fields,
    ...(sources ? { sources: JSON.stringify(sources) } : {}),
    adapters: JSON.stringify(row.adapters),
    ...(row.company_adapters ? { company_adapters: JSON.stringify(row.company_adapters) } : {}),
  };
}

/** Why there is no match, in words (the outcome's name in brackets, as the server's header says it). */
const MISS_TEXT: Record<MissReason, string> = {
  no_match: 'no match (no_match)',
  not_found_on_site: 'no match: the company’s site was read and does not have it (not_found_on_site)',
  site_unreachable: 'no match: the company’s site could not be read (site_unreachable)',
  suppressed: 'suppressed (erased earlier): not looked up (suppressed)',
  all_adapters_failed: 'no verdict: no source could be reached; try again later (all_adapters_failed)',
};

/** Terminal text: the input, then `field: value` lines of the match, or why there is none. */
function text(row: Row, field: 'person' | 'company'): string {
  if ('error' in row) return `${row.input}\n  error: ${row.error.message}\n`;
  const match = row[field];
  const list = (answers: Record<string, string>) =>
    Object.entries(answers)
      .map(([adapter, answer]) => `${adapter}=${answer}`)
      .join(', ');
  const adapters = list(row.adapters);
  const companyAdapters = row.company_adapters ? list(row.company_adapters) : '';
  const asked =
    (adapters ? `\n  adapters: ${adapters}` : '') +
    (companyAdapters ? `\n  company adapters: ${companyAdapters}` : '');
  if (!match) return `${row.input}\n  ${MISS_TEXT[row.outcome as MissReason] ?? 'no match'}${asked}\n`;
  const lines: string[] = [];
  const { sources, ...fields } = match as unknown as Record<string, unknown>;
  // Nested objects (a person's company, its social profiles) print as dotted paths.
  const print = (path: string, value: unknown): void => {
    if (value === null || value === undefined || (Array.isArray(value) && value.length === 0)) return;
    if (typeof value === 'object' && !Array.isArray(value)) {
      for (const [inner, innerValue] of Object.entries(value as Record<string, unknown>))
        print(`${path}.${inner}`, innerValue);
    } else lines.push(`  ${path}: ${Array.isArray(value) ? value.join(', ') : String(value)}`);
  };
  for (const [key, value] of Object.entries(fields)) print(key, value);
  const from = [
    ...new Set(
      Object.values((sources ?? {}) as Record<string, { adapter?: string }>).map((source) => source.adapter),
    ),
  ];
  if (from.length > 0) lines.push(`  sources: ${from.join(', ')}`);
  return `${row.input}\n${lines.join('\n')}${asked}\n`;
}
