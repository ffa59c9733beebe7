import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { checkReadableFile } from '../../fs/check-paths.js';
import type { CliIo } from '../../io.js';
import { printJson } from '../../output.js';
import { cliSqliteDriver } from '../../sqlite-driver.js';
import { UsageError } from '../../usage-error.js';
import type { EnrichPaths } from './paths.js';

/**
 * `svc enrich import <file> --kind person|company`: the user's own people or companies into the
 * dataset index the `dataset` adapter reads. All or nothing: a bad row names its line and
 * nothing of the file is kept.
 */
export async function importDataset(
  io: CliIo,
  json: boolean,
  values: Record<string, unknown>,
  args: string[],
  paths: EnrichPaths,
): Promise<0> {
  if (args.length !== 1) throw new UsageError('import takes one file (.csv, .jsonl or .ndjson)', 'enrich');
  const kind = values.kind;
  if (kind !== 'person' && kind !== 'company') {
    throw new UsageError('import needs --kind person or --kind company (what each row is)', 'enrich');
  }
  const shown = args[0] as string;
  const full = resolve(io.cwd, shown);
  await checkReadableFile(full, shown);
  const { openDatasetIndex } = await import('@svc/enricher');
  await mkdir(dirname(paths.dataset), { recursive: true, mode: 0o700 });
  const index = await openDatasetIndex({ path: paths.dataset, driver: await cliSqliteDriver() });
  try {
    const summary = await index.importFile(full, {
      kind,
      onProgress: (rows) => {
        if (rows % 10_000 === 0) io.stderr.write(`import: ${rows.toLocaleString('en')} rows…\n`);
      },
    });
    const counts = index.counts();
    const result = { ...summary, dataset: paths.dataset, people: counts.people, companies: counts.companies };
    if (json) printJson(io, result);
    else {
      const ignored =
        summary.ignored_columns.length > 0 ? ` (ignored columns: ${summary.ignored_columns.join(', ')})` : '';
      io.stdout.write(
        `imported ${summary.imported} ${kind === 'person' ? 'people' : 'companies'} from ${shown}${ignored}\n` +
          `dataset ${paths.dataset}: ${counts.people} people, ${counts.companies} companies\n`,
      );
    }
  } finally {
    index.close();
  }
  return 0;
}
