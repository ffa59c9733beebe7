import type { PgQueryable } from './pg-types.js';

/** One version of a store's schema. */
export interface PostgresMigration {
  /** What the version adds, in words (listed by `svc migrate`). */
  name: string;
  /** The statements, given the quoted schema name (e.g. `"svc_batch"`). */
  sql: (schema: string) => string;
}

/** Options of {@link runPostgresMigrations}: which versions, and how the schema records them. */
export interface RunPostgresMigrationsOptions {
  /** The schema, already checked (see `checkedPostgresSchema`); created if missing. */
  schema: string;
  /** Every version, oldest first. Never edit one that has shipped: add the next one. */
  migrations: readonly PostgresMigration[];
  /** The table in the schema listing the versions applied, e.g. `'batch_schema_migrations'`. */
  table: string;
  /**
   * Whether that table has a `name` column with each version's name (a table created before
   * names were recorded has only `version` and `applied_at`).
   * @default true
   */
  recordNames?: boolean;
  /**
   * The advisory lock's first key: any constant shared by every process migrating this kind of
   * store, and different from other stores'. The second key is the schema's hash, so different
   * schemas migrate independently.
   */
  lockKey: number;
  /** What the versions count, in the error about a newer schema, e.g. `'batch store version'`. */
  versionOf: string;
  /** The package whose versions these are, named in that error, e.g. `'@svc/batch-runner'`. */
  packageName: string;
}

/** What a migration did: the schema's version before and after, and the versions applied. */
export interface PostgresMigrationOutcome {
  schema: string;
  fromVersion: number;
  toVersion: number;
  /** The names of the versions applied now, oldest first (empty when it was up to date). */
  applied: string[];
}

/**
 * Brings the schema to the newest version in one transaction on `client`, under an advisory
 * lock, so two processes starting at once apply each version once (the second waits, then finds
 * nothing to do). A schema at a version newer than `migrations` knows is refused with both
 * versions named; any failure rolls everything back.
 */
export async function runPostgresMigrations(
  client: PgQueryable,
  options: RunPostgresMigrationsOptions,
): Promise<PostgresMigrationOutcome> {
  const { schema, migrations, table, lockKey, versionOf, packageName } = options;
  const recordNames = options.recordNames ?? true;
  // Spliced into SQL unquoted, like the schema: only a plain identifier (it comes from code).
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(table))
    throw new TypeError(`table must be a plain identifier, got ${JSON.stringify(table)}`);
  const s = `"${schema}"`;
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [lockKey, schema]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${s}.${table} (
        version INTEGER PRIMARY KEY,${recordNames ? ' name TEXT NOT NULL,' : ''} applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ version: number | null }>(
      `SELECT max(version) AS version FROM ${s}.${table}`,
    );
    const fromVersion = rows[0]?.version ?? 0;
    const newest = migrations.length;
    if (fromVersion > newest) {
      throw new Error(
        `schema ${schema} has ${versionOf} ${fromVersion}, newer than this ${packageName} knows (${newest}); upgrade ${packageName}`,
      );
    }
    const applied: string[] = [];
    for (let next = fromVersion; next < newest; next++) {
      const migration = migrations[next] as PostgresMigration;
      await client.query(migration.sql(s));
      await (recordNames
        ? client.query(`INSERT INTO ${s}.${table} (version, name) VALUES ($1, $2)`, [
            next + 1,
            migration.name,
          ])
        : client.query(`INSERT INTO ${s}.${table} (version) VALUES ($1)`, [next + 1]));
      applied.push(migration.name);
    }
    await client.query('COMMIT');
    return { schema, fromVersion, toVersion: newest, applied };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}
