import type { SqliteDriver } from '@svc/core';
import { createPrivateDatabaseFile } from '@svc/core';
import { sqliteDatabaseClass } from '../sqlite-driver.js';

/**
 * Identifiers nobody may enrich: checked before any adapter is called, and filled by `erase`.
 * Holds SHA-256 hashes only (see `hashIdentifier`), kept until removed by the operator.
 */
export interface SuppressionList {
  has(hash: string): Promise<boolean>;
  /** Adds a hash (idempotent); `at` is ms since the epoch, kept for audit. */
  add(hash: string, at: number): Promise<void>;
  /** Removes a hash (an operator undoing a mistaken erase); true when it was there. */
  remove(hash: string): Promise<boolean>;
  close(): Promise<void>;
}

const HEX64 = /^[0-9a-f]{64}$/;
/** The hash, or a `TypeError` unless it is a SHA-256 hex digest (every backend refuses anything else). */
export function checkHash(hash: string): string {
  if (!HEX64.test(hash))
    throw new TypeError(`a suppression entry is a SHA-256 hex digest, got ${JSON.stringify(hash)}`);
  return hash;
}

/** A suppression list in memory (tests, one-off runs): gone on restart. */
export function createMemorySuppression(initial: Iterable<string> = []): SuppressionList {
  const hashes = new Map<string, number>();
  for (const hash of initial) hashes.set(checkHash(hash), 0);
  return {
    async has(hash) {
      return hashes.has(hash);
    },
    async add(hash, at) {
      if (!hashes.has(checkHash(hash))) hashes.set(hash, at);
    },
    async remove(hash) {
      return hashes.delete(hash);
    },
    async close() {},
  };
}

export interface SqliteSuppressionOptions {
  /** Database file (may be the cache's file), created with mode 0600 if missing. */
  path: string;
  /** better-sqlite3's `Database` class where this package cannot resolve it. */
  driver?: SqliteDriver;
}

/** A suppression list in a SQLite table: survives restarts, so an erase stays in force. */
export async function createSqliteSuppression(options: SqliteSuppressionOptions): Promise<SuppressionList> {
  const Database = await sqliteDatabaseClass('createSqliteSuppression', options.driver);
  createPrivateDatabaseFile(options.path);
  const db = new Database(options.path);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE IF NOT EXISTS enrich_suppression (hash TEXT PRIMARY KEY, added_at INTEGER NOT NULL)');
  const has = db.prepare<[string], { hash: string }>('SELECT hash FROM enrich_suppression WHERE hash = ?');
  const add = db.prepare<[string, number]>(
    'INSERT OR IGNORE INTO enrich_suppression (hash, added_at) VALUES (?, ?)',
  );
  const remove = db.prepare<[string]>('DELETE FROM enrich_suppression WHERE hash = ?');
  return {
    async has(hash) {
      return has.get(hash) !== undefined;
    },
    async add(hash, at) {
      add.run(checkHash(hash), at);
    },
    async remove(hash) {
      return remove.run(hash).changes > 0;
    },
    async close() {
      if (db.open) db.close();
    },
  };
}
