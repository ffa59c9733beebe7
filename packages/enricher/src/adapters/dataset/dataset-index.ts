import { basename, extname } from 'node:path';
import type { SqliteDriver } from '@svc/core';
import { createPrivateDatabaseFile, ServiceError } from '@svc/core';
import type BetterSqlite3 from 'better-sqlite3';
import type { CompanyFields, PersonFields, PersonQuery } from '../../adapter.js';
import { sqliteDatabaseClass } from '../../sqlite-driver.js';
import {
  type CompanyRow,
  companyRow,
  type DatasetKind,
  type PersonRow,
  personRow,
  planColumns,
  RowError,
} from './columns.js';
import { canonicalProfileUrl, nameKey, normaliseEmail, registrableDomain } from './normalise.js';
import { FileFormatError, readCsv, readJsonl, type SourceRow } from './read-rows.js';

/** Options of the dataset index. */
export interface DatasetIndexOptions {
  /** SQLite file; created (owner-only, 0600) if missing. `:memory:` keeps nothing. */
  path: string;
  /**
   * better-sqlite3's `Database` class, for an app that depends on better-sqlite3 itself (an
   * optional peer resolves from this package's folder, which a global install may not see).
   * @default the better-sqlite3 this package resolves, loaded on first use
   */
  driver?: SqliteDriver;
}

export interface ImportOptions {
  /** What each row is: a person or a company. */
  kind: DatasetKind;
  /** @default from the extension: `.csv` → csv, `.jsonl`/`.ndjson` → jsonl */
  format?: 'csv' | 'jsonl';
  /** Called every 1,000 rows and at the end with the rows read so far. */
  onProgress?: (rows: number) => void;
}

/** What an import did (snake_case: the CLI prints it as JSON). */
export interface ImportSummary {
  kind: DatasetKind;
  /** Rows read and stored (a row with the key of an earlier one replaces it). */
  imported: number;
  /** Columns no field is read from (kept out of the index). */
  ignored_columns: string[];
}

export interface DatasetIndex {
  /**
   * Imports a CSV or JSONL file in one transaction: a bad row stops the import, nothing of the
   * file is kept, and the `invalid_request` error names the file and line.
   */
  importFile(path: string, options: ImportOptions): Promise<ImportSummary>;
  /** People matching a normalised query (several for a namesake at one company). */
  findPeople(query: PersonQuery): Partial<PersonFields>[];
  findCompany(domain: string): Partial<CompanyFields> | null;
  /** Removes people with this email or profile URL, or the company with this domain; returns rows removed. */
  erase(identifier: string): number;
  /** Removes the people a person query finds (by email, profile URL, or name at a domain); returns rows removed. */
  erasePerson(query: PersonQuery): number;
  counts(): { people: number; companies: number };
  close(): void;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS people (
  id INTEGER PRIMARY KEY, email TEXT UNIQUE, profile_url TEXT UNIQUE, domain TEXT, name_key TEXT,
  fields TEXT NOT NULL, imported_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS people_domain_name ON people (domain, name_key);
CREATE TABLE IF NOT EXISTS companies (
  domain TEXT PRIMARY KEY, fields TEXT NOT NULL, imported_at INTEGER NOT NULL
) WITHOUT ROWID;
`;

/** Opens (or creates) the local SQLite index the dataset adapter reads. */
export async function openDatasetIndex(options: DatasetIndexOptions): Promise<DatasetIndex> {
  const Database = await sqliteDatabaseClass('the dataset index', options.driver);
  // The index holds people's names and addresses: readable by its owner only.
  createPrivateDatabaseFile(options.path);
  let db: BetterSqlite3.Database;
  try {
    db = new Database(options.path);
  } catch (error) {
    throw new Error(`cannot open the dataset index ${options.path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  db.pragma('journal_mode = WAL');
  db.exec(SCHEMA);

  const insertPerson = db.prepare(
    `INSERT OR REPLACE INTO people (email, profile_url, domain, name_key, fields, imported_at)
     VALUES (@email, @profileUrl, @domain, @nameKey, @fields, @now)`,
  );
  // A row known only by name and company replaces the same name at the same company, so
  // importing a file twice does not double it.
  const deleteNamedOnly = db.prepare(
    'DELETE FROM people WHERE email IS NULL AND profile_url IS NULL AND domain = ? AND name_key = ?',
  );
  const insertCompany = db.prepare(
    'INSERT OR REPLACE INTO companies (domain, fields, imported_at) VALUES (?, ?, ?)',
  );
  const byEmail = db.prepare<[string], { fields: string }>('SELECT fields FROM people WHERE email = ?');
  const byProfile = db.prepare<[string], { fields: string }>(
    'SELECT fields FROM people WHERE profile_url = ?',
  );
  const byName = db.prepare<[string, string], { fields: string }>(
    'SELECT fields FROM people WHERE domain = ? AND name_key = ? ORDER BY id',
  );
  const company = db.prepare<[string], { fields: string }>('SELECT fields FROM companies WHERE domain = ?');

  function storePerson(row: PersonRow, now: number): void {
    if (!row.email && !row.profileUrl) deleteNamedOnly.run(row.domain, row.nameKey);
    insertPerson.run({ ...row, fields: JSON.stringify(row.fields), now });
  }
  function storeCompany(row: CompanyRow, now: number): void {
    insertCompany.run(row.domain, JSON.stringify(row.fields), now);
  }

  return {
    async importFile(path, importOptions) {
      const { kind } = importOptions;
      if (kind !== 'person' && kind !== 'company') {
        throw new ServiceError(
          'invalid_request',
          `kind must be "person" or "company", got ${JSON.stringify(kind)}`,
        );
      }
      const format = importOptions.format ?? formatOf(path);
      const name = basename(path);
      const rows = format === 'csv' ? readCsv(path) : readJsonl(path);
      const plans = new Map<string, ReturnType<typeof planColumns>>();
      const ignored = new Set<string>();
      const now = Date.now();
      const year = new Date(now).getUTCFullYear();
      let imported = 0;
      let line = 0;
      // better-sqlite3 transactions are synchronous; this connection does nothing else between
      // the awaits of reading, so BEGIN … COMMIT around the loop is one transaction.
      db.exec('BEGIN');
      try {
        for await (const row of rows as AsyncIterable<SourceRow>) {
          line = row.line;
          const headers = Object.keys(row.values);
          const planKey = headers.join('\u0000');
          let plan = plans.get(planKey);
          if (!plan) {
            plan = planColumns(kind, headers);
            plans.set(planKey, plan);
            for (const header of plan.ignored) ignored.add(header);
          }
          if (kind === 'person') storePerson(personRow(row.values, plan.fields, year), now);
          else storeCompany(companyRow(row.values, plan.fields, year), now);
          imported++;
          if (imported % 1000 === 0) importOptions.onProgress?.(imported);
        }
        if (imported === 0)
          throw new RowError(`no ${kind === 'person' ? 'people' : 'companies'} in the file`);
        db.exec('COMMIT');
      } catch (error) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw describeImportError(error, name, line);
      }
      importOptions.onProgress?.(imported);
      return { kind, imported, ignored_columns: [...ignored] };
    },

    findPeople(query) {
      let rows: { fields: string }[];
      if (query.by === 'email') {
        const email = normaliseEmail(query.email);
        rows = email ? byEmail.all(email) : [];
      } else if (query.by === 'profile_url') {
        const url = canonicalProfileUrl(query.profile_url);
        rows = url ? byProfile.all(url) : [];
      } else {
        const domain = registrableDomain(query.domain);
        rows = domain ? byName.all(domain, nameKey(query.full_name)) : [];
      }
      return rows.map((row) => JSON.parse(row.fields) as Partial<PersonFields>);
    },

    findCompany(domain) {
      const key = registrableDomain(domain);
      const row = key ? company.get(key) : undefined;
      return row ? (JSON.parse(row.fields) as Partial<CompanyFields>) : null;
    },

    erase(identifier) {
      const email = normaliseEmail(identifier);
      if (email) return db.prepare('DELETE FROM people WHERE email = ?').run(email).changes;
      if (/^https?:\/\//i.test(identifier.trim())) {
        const url = canonicalProfileUrl(identifier);
        return url ? db.prepare('DELETE FROM people WHERE profile_url = ?').run(url).changes : 0;
      }
      const domain = registrableDomain(identifier);
      return domain ? db.prepare('DELETE FROM companies WHERE domain = ?').run(domain).changes : 0;
    },

    erasePerson(query) {
      if (query.by === 'email') {
        const email = normaliseEmail(query.email);
        return email ? db.prepare('DELETE FROM people WHERE email = ?').run(email).changes : 0;
      }
      if (query.by === 'profile_url') {
        const url = canonicalProfileUrl(query.profile_url);
        return url ? db.prepare('DELETE FROM people WHERE profile_url = ?').run(url).changes : 0;
      }
      const domain = registrableDomain(query.domain);
      return domain
        ? db
            .prepare('DELETE FROM people WHERE domain = ? AND name_key = ?')
            .run(domain, nameKey(query.full_name)).changes
        : 0;
    },

    counts() {
      const count = (table: string) =>
        (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
      return { people: count('people'), companies: count('companies') };
    },

    close() {
      if (db.open) db.close();
    },
  };
}

function formatOf(path: string): 'csv' | 'jsonl' {
  const extension = extname(path).toLowerCase();
  if (extension === '.csv') return 'csv';
  if (extension === '.jsonl' || extension === '.ndjson') return 'jsonl';
  throw new ServiceError(
    'invalid_request',
    `cannot tell the format of ${basename(path)} from its extension: name it .csv, .jsonl or .ndjson, or pass format`,
  );
}

const FILE_ERRORS: Record<string, string> = {
  ENOENT: 'no such file',
  EISDIR: 'is a directory, not a file',
  EACCES: 'permission denied',
};

function describeImportError(error: unknown, file: string, line: number): unknown {
  if (error instanceof FileFormatError) {
    return new ServiceError('invalid_request', `${file} line ${error.line}: ${error.message}`, {
      cause: error,
    });
  }
  if (error instanceof RowError) {
    const where = error.message.startsWith('no ') ? file : `${file} line ${line}`;
    return new ServiceError('invalid_request', `${where}: ${error.message}`, { cause: error });
  }
  const reason = FILE_ERRORS[(error as { code?: string }).code ?? ''];
  if (reason) return new ServiceError('invalid_request', `${file}: ${reason}`, { cause: error });
  // planColumns' clash is about the header (line 1).
  if (error instanceof Error && error.message.startsWith('columns ')) {
    return new ServiceError('invalid_request', `${file}: ${error.message}`, { cause: error });
  }
  return error;
}
