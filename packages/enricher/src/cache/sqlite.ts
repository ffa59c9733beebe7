import type { SqliteDriver } from '@svc/core';
import { createPrivateDatabaseFile } from '@svc/core';
import { sqliteDatabaseClass } from '../sqlite-driver.js';
import { type CacheOptions, cappedExpiry, checkRetention, type EnrichmentCache } from './types.js';

export interface SqliteCacheOptions extends CacheOptions {
  /** Database file, created (mode 0600: it holds personal data) if missing. `:memory:` keeps nothing. */
  path: string;
  /**
   * better-sqlite3's `Database` class, for an app that depends on it itself:
   * `(await import('better-sqlite3')).default`. Needed where this package cannot resolve it.
   */
  driver?: SqliteDriver;
}

/** A cache in a SQLite file: survives restarts; erase and expiry delete rows (no soft deletes). */
export async function createSqliteCache(options: SqliteCacheOptions): Promise<EnrichmentCache> {
  const retention = checkRetention(options.retentionSeconds);
  const Database = await sqliteDatabaseClass('the SQLite cache', options.driver);
  createPrivateDatabaseFile(options.path);
  const db = new Database(options.path);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.exec(`
    CREATE TABLE IF NOT EXISTS enrich_cache (
      key TEXT PRIMARY KEY,
      value TEXT NOT NULL,
      stored_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL
    );
    CREATE INDEX IF NOT EXISTS enrich_cache_expiry ON enrich_cache (expires_at);
    CREATE TABLE IF NOT EXISTS enrich_cache_subjects (
      subject TEXT NOT NULL,
      key TEXT NOT NULL REFERENCES enrich_cache (key) ON DELETE CASCADE,
      PRIMARY KEY (subject, key)
    );
    CREATE INDEX IF NOT EXISTS enrich_cache_subjects_key ON enrich_cache_subjects (key);
  `);
  const select = db.prepare<[string, number], { value: string; stored_at: number; expires_at: number }>(
    'SELECT value, stored_at, expires_at FROM enrich_cache WHERE key = ? AND expires_at > ?',
  );
  const subjectsOf = db.prepare<[string], { subject: string }>(
    'SELECT subject FROM enrich_cache_subjects WHERE key = ?',
  );
  const remove = db.prepare<[string]>('DELETE FROM enrich_cache WHERE key = ?');
  const insert = db.prepare<[string, string, number, number]>(
    'INSERT INTO enrich_cache (key, value, stored_at, expires_at) VALUES (?, ?, ?, ?)',
  );
  const insertSubject = db.prepare<[string, string]>(
    'INSERT OR IGNORE INTO enrich_cache_subjects (subject, key) VALUES (?, ?)',
  );
  const purge = db.prepare<[string]>(
    'DELETE FROM enrich_cache WHERE key IN (SELECT key FROM enrich_cache_subjects WHERE subject = ?)',
  );
  const prune = db.prepare<[number]>('DELETE FROM enrich_cache WHERE expires_at <= ?');
  const replace = db.transaction(
    (key: string, value: string, storedAt: number, expiresAt: number, subjects: readonly string[]) => {
      remove.run(key);
      insert.run(key, value, storedAt, expiresAt);
      for (const subject of subjects) insertSubject.run(subject, key);
    },
  );

  return {
    async get(key, now) {
      const row = select.get(key, now);
      if (!row) return undefined;
      return {
        value: row.value,
        storedAt: row.stored_at,
        expiresAt: row.expires_at,
        subjects: subjectsOf.all(key).map((entry) => entry.subject),
      };
    },
    async set(key, entry) {
      replace(key, entry.value, entry.storedAt, cappedExpiry(entry, retention), entry.subjects);
    },
    async purgeSubject(subject) {
      return purge.run(subject).changes;
    },
    async prune(now) {
      return prune.run(now).changes;
    },
    async close() {
      if (db.open) db.close();
    },
  };
}
