import type { Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { printJson } from '../output.js';
import { checkedPostgresUrl } from '../postgres-url.js';
import { UsageError } from '../usage-error.js';

/** What one store's migration did, as printed. */
interface Migrated {
  store: 'batch store' | 'control plane' | 'enrichment cache and suppression list';
  schema: string;
  fromVersion: number;
  toVersion: number;
  /** The names of the versions applied, when the store names them. */
  applied?: string[];
}

/** Each store's name in `--json`. */
const JSON_STORE_NAMES: Record<Migrated['store'], string> = {
  'batch store': 'batch',
  'control plane': 'control_plane',
  'enrichment cache and suppression list': 'enrichment',
};

/**
 * `svc migrate`: creates or upgrades the PostgreSQL schemas of the batch store, the control
 * plane and the enrichment cache and suppression list, the same migrations `svc serve` runs when it starts (safe beside running processes:
 * each takes an advisory lock), for deployments that migrate in a release step.
 */
export const migrateCommand: Command = {
  name: 'migrate',
  summary: 'Create or upgrade the PostgreSQL schemas of the batch store, control plane and enrichment stores',
  usage: ['--database-url postgres://… [--schema S]'],
  details: `Options:
  --database-url <url>  postgres://user:password@host:5432/database (else $SVC_DATABASE_URL)
  --schema <name>       put every store's tables in this schema (default: svc_batch for the
                        batch store, svc_control for the control plane and svc_enrich for
                        the enrichment cache and suppression list, where svc serve looks
                        for them)

Applies the versions each schema lacks, each in one transaction under an advisory lock, so it
is safe while svc serve processes start or run (they migrate on start the same way), and prints
the version before and after. A schema written by a newer svc is refused: exit 1.`,
  options: {
    'database-url': { type: 'string' },
    schema: { type: 'string' },
  },
  async run({ io, flags, values, positionals }) {
    if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    const url = (values['database-url'] as string | undefined) ?? io.env.SVC_DATABASE_URL;
    if (!url) throw new UsageError('svc migrate needs --database-url postgres://… (or SVC_DATABASE_URL)');
    checkedPostgresUrl(url, '--database-url');
    const schema = values.schema as string | undefined;
    // Loaded here: the command table must not load pg or the server for every other command.
    // The CLI's own pg goes to both stores (an optional peer of @svc/batch-runner, which opens
    // their pools; see sqlite-driver.ts).
    const [{ migratePostgresStore }, { migratePostgresControlPlane }, { migrateEnrichPostgres }, pg] =
      await Promise.all([
        import('@svc/batch-runner'),
        import('@svc/server'),
        import('@svc/enricher'),
        import('pg'),
      ]);
    const results: Migrated[] = [];
    // As text, each store's line as soon as it is migrated: if the second fails, the first's
    // change is still reported (it is committed).
    const done = (result: Migrated) => {
      results.push(result);
      if (flags.json) return;
      const where = `${result.store} (schema ${result.schema})`;
      io.stdout.write(
        result.fromVersion === result.toVersion
          ? `${where}: up to date at version ${result.toVersion}\n`
          : `${where}: version ${result.fromVersion} → ${result.toVersion}\n`,
      );
      for (const [offset, name] of (result.applied ?? []).entries())
        io.stdout.write(`  applied ${result.fromVersion + offset + 1}: ${name}\n`);
    };
    try {
      done({
        store: 'batch store',
        ...(await migratePostgresStore({ connectionString: url, schema, driver: pg })),
      });
      done({
        store: 'control plane',
        ...(await migratePostgresControlPlane({ connectionString: url, schema, driver: pg })),
      });
      done({
        store: 'enrichment cache and suppression list',
        ...(await migrateEnrichPostgres({ connectionString: url, schema, driver: pg, poolSize: 1 })),
      });
    } catch (error) {
      // A bad --schema is a usage mistake; the stores say so with a TypeError before connecting.
      if (error instanceof TypeError) throw new UsageError(error.message.replace(/^schema/, '--schema'));
      throw error;
    }
    if (flags.json) {
      printJson(io, {
        migrated: results.map((result) => ({
          store: JSON_STORE_NAMES[result.store],
          schema: result.schema,
          from_version: result.fromVersion,
          to_version: result.toVersion,
          ...(result.applied && { applied: result.applied }),
        })),
      });
    }
    return EXIT.ok;
  },
};
