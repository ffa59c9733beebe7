import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { SqliteDriver } from '@svc/core';
import { createPrivateDatabaseFile, importOptionalPeer } from '@svc/core';
import type BetterSqlite3 from 'better-sqlite3';
import { domainOf, type FeedbackKind } from '../event.js';
import { localPartPattern, type PatternCount } from '../pattern.js';
import {
  type AddressSummary,
  addressOutcome,
  foldAll,
  foldEvent,
  mergeByAddress,
  mergeStoredSummaries,
  type RecordedFeedbackEvent,
} from '../summary.js';
import { countPatterns } from './count-patterns.js';
import { type EventRow, fromEventRow, toEventRow } from './sql-rows.js';
import { checkRecordSize, type FeedbackScope, type FeedbackStore, feedbackStats } from './store.js';

/** Options of createSqliteFeedbackStore. */
export interface SqliteFeedbackStoreOptions {
  /** Database file, created (mode 0600: it holds addresses) if missing. `:memory:` keeps nothing. */
  path: string;
  /**
   * better-sqlite3's `Database` class, for an app that depends on it itself.
   * @default the better-sqlite3 this package resolves, loaded on first use
   */
  driver?: SqliteDriver;
}

async function loadDriver(): Promise<typeof BetterSqlite3> {
  const { default: Database } = await importOptionalPeer(() => import('better-sqlite3'), {
    user: 'the SQLite feedback store',
    needs: 'better-sqlite3',
    install: 'better-sqlite3@12',
    from: '@svc/feedback',
    otherwise: 'passed as the `driver` option',
  });
  return Database;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS feedback_events (
  account TEXT NOT NULL, provider TEXT NOT NULL, event_id TEXT NOT NULL,
  address TEXT NOT NULL, kind TEXT NOT NULL, at TEXT NOT NULL,
  bounce_type TEXT, diagnostic TEXT, reading TEXT,
  PRIMARY KEY (account, provider, event_id)
);
CREATE INDEX IF NOT EXISTS feedback_events_address ON feedback_events (account, address);
CREATE INDEX IF NOT EXISTS feedback_events_at ON feedback_events (at);
CREATE TABLE IF NOT EXISTS feedback_addresses (
  account TEXT NOT NULL, address TEXT NOT NULL, domain TEXT NOT NULL, pattern TEXT NOT NULL,
  outcome TEXT, last_event_at TEXT NOT NULL, summary TEXT NOT NULL,
  PRIMARY KEY (account, address)
);
CREATE INDEX IF NOT EXISTS feedback_addresses_domain ON feedback_addresses (domain, account);
CREATE TABLE IF NOT EXISTS feedback_verdict_changes (account TEXT NOT NULL, at TEXT NOT NULL, change TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS feedback_verdict_changes_at ON feedback_verdict_changes (account, at);
CREATE TABLE IF NOT EXISTS feedback_providers (
  account TEXT NOT NULL, provider TEXT NOT NULL, sealed TEXT NOT NULL, configured_at TEXT NOT NULL,
  PRIMARY KEY (account, provider)
);
`;

/**
 * A feedback store in one SQLite file: for `svc serve` on one machine and for `svc feedback
 * import`. Events are the record; each address's folded summary is kept beside them so a verify
 * reads one row.
 */
export async function createSqliteFeedbackStore(options: SqliteFeedbackStoreOptions): Promise<FeedbackStore> {
  const Database = (options.driver as typeof BetterSqlite3 | undefined) ?? (await loadDriver());
  if (options.path !== ':memory:') {
    // Its folder too (private: the file holds addresses), so a first import needs no set-up.
    mkdirSync(dirname(options.path), { recursive: true, mode: 0o700 });
    createPrivateDatabaseFile(options.path);
  }
  const db = new Database(options.path);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.exec(SCHEMA);

  const insertEvent = db.prepare(
    `INSERT OR IGNORE INTO feedback_events (account, provider, event_id, address, kind, at, bounce_type, diagnostic, reading)
     VALUES (@account, @provider, @event_id, @address, @kind, @at, @bounce_type, @diagnostic, @reading)`,
  );
  const readSummary = db.prepare('SELECT summary FROM feedback_addresses WHERE account = ? AND address = ?');
  const readSummaries = db.prepare('SELECT summary FROM feedback_addresses WHERE address = ?');
  const writeSummary = db.prepare(
    `INSERT INTO feedback_addresses (account, address, domain, pattern, outcome, last_event_at, summary)
     VALUES (@account, @address, @domain, @pattern, @outcome, @last_event_at, @summary)
     ON CONFLICT (account, address) DO UPDATE SET outcome = excluded.outcome,
       last_event_at = excluded.last_event_at, summary = excluded.summary`,
  );
  const saveSummary = (account: string, summary: AddressSummary) =>
    writeSummary.run({
      account,
      address: summary.address,
      domain: domainOf(summary.address),
      pattern: localPartPattern(summary.address),
      outcome: addressOutcome(summary),
      last_event_at: summary.lastEventAt,
      summary: JSON.stringify(summary),
    });

  const record = db.transaction((account: string, events: readonly RecordedFeedbackEvent[]) => {
    let stored = 0;
    for (const event of events) {
      if (insertEvent.run({ account, ...toEventRow(event) }).changes === 0) continue;
      stored += 1;
      const row = readSummary.get(account, event.address) as { summary: string } | undefined;
      saveSummary(account, foldEvent(row ? (JSON.parse(row.summary) as AddressSummary) : null, event));
    }
    return stored;
  });

  const readOne = (scope: FeedbackScope, address: string): AddressSummary | null => {
    if (scope !== 'shared') {
      const row = readSummary.get(scope.account, address) as { summary: string } | undefined;
      return row ? (JSON.parse(row.summary) as AddressSummary) : null;
    }
    return mergeStoredSummaries(
      (readSummaries.all(address) as { summary: string }[]).map((row) => row.summary),
    );
  };

  const refold = (account: string, address: string) => {
    const rows = db
      .prepare('SELECT * FROM feedback_events WHERE account = ? AND address = ?')
      .all(account, address) as EventRow[];
    const summary = foldAll(rows.map(fromEventRow)).get(address);
    if (summary) saveSummary(account, summary);
    else db.prepare('DELETE FROM feedback_addresses WHERE account = ? AND address = ?').run(account, address);
  };

  return {
    async record(account, events) {
      checkRecordSize(events);
      const stored = record(account, events);
      return { stored, duplicates: events.length - stored };
    },
    async summary(scope, address) {
      return readOne(scope, address);
    },
    async summaries(scope, addresses) {
      checkRecordSize(addresses, 'summaries reads', 'addresses');
      // better-sqlite3 reads synchronously: one prepared read per address costs no round trip.
      const found = new Map<string, AddressSummary>();
      for (const address of new Set(addresses)) {
        const summary =
          scope === 'shared'
            ? mergeStoredSummaries(
                (readSummaries.all(address) as { summary: string }[]).map((row) => row.summary),
              )
            : ((row) => (row ? (JSON.parse(row.summary) as AddressSummary) : null))(
                readSummary.get(scope.account, address) as { summary: string } | undefined,
              );
        if (summary) found.set(address, summary);
      }
      return found;
    },
    async patterns(scope, domain) {
      if (scope !== 'shared') {
        const rows = db
          .prepare(
            `SELECT pattern, SUM(outcome = 'delivered') AS delivered, SUM(outcome = 'bounced') AS bounced
             FROM feedback_addresses WHERE domain = ? AND account = ? AND outcome IS NOT NULL
             GROUP BY pattern ORDER BY pattern`,
          )
          .all(domain, scope.account) as PatternCount[];
        return rows.map((row) => ({
          pattern: row.pattern,
          delivered: Number(row.delivered),
          bounced: Number(row.bounced),
        }));
      }
      const rows = db.prepare('SELECT summary FROM feedback_addresses WHERE domain = ?').all(domain) as {
        summary: string;
      }[];
      return countPatterns(mergeByAddress(rows.map((row) => row.summary)).values());
    },
    async noteVerdictChange(account, change, at) {
      db.prepare('INSERT INTO feedback_verdict_changes (account, at, change) VALUES (?, ?, ?)').run(
        account,
        at,
        change,
      );
    },
    async stats(account, since, limit = 20) {
      const kinds = db
        .prepare(
          'SELECT provider, kind, COUNT(*) AS n FROM feedback_events WHERE account = ? AND at >= ? GROUP BY provider, kind',
        )
        .all(account, since) as { provider: string; kind: FeedbackKind; n: number }[];
      const domains = db
        .prepare(
          `SELECT domain, SUM(outcome = 'delivered') AS delivered, SUM(outcome = 'bounced') AS bounced
           FROM feedback_addresses WHERE account = ? AND last_event_at >= ? AND outcome IS NOT NULL
           GROUP BY domain ORDER BY COUNT(*) DESC, domain LIMIT ?`,
        )
        .all(account, since, limit) as { domain: string; delivered: number; bounced: number }[];
      const changes = db
        .prepare(
          'SELECT change, COUNT(*) AS n FROM feedback_verdict_changes WHERE account = ? AND at >= ? GROUP BY change',
        )
        .all(account, since) as { change: 'upgraded' | 'downgraded'; n: number }[];
      return feedbackStats(since, kinds, domains, changes);
    },
    async setProvider(account, provider, sealed, at) {
      db.prepare(
        `INSERT INTO feedback_providers (account, provider, sealed, configured_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (account, provider) DO UPDATE SET sealed = excluded.sealed, configured_at = excluded.configured_at`,
      ).run(account, provider, sealed, at);
    },
    async providerCredentials(account, provider) {
      const row = db
        .prepare('SELECT sealed FROM feedback_providers WHERE account = ? AND provider = ?')
        .get(account, provider) as { sealed: string } | undefined;
      return row?.sealed ?? null;
    },
    async providers(account) {
      const rows = db
        .prepare('SELECT provider, configured_at FROM feedback_providers WHERE account = ? ORDER BY provider')
        .all(account) as { provider: string; configured_at: string }[];
      return rows.map((row) => ({ provider: row.provider, configuredAt: row.configured_at }));
    },
    async removeProvider(account, provider) {
      return (
        db.prepare('DELETE FROM feedback_providers WHERE account = ? AND provider = ?').run(account, provider)
          .changes > 0
      );
    },
    async erase(account, address) {
      return db.transaction(() => {
        const removed = db
          .prepare('DELETE FROM feedback_events WHERE account = ? AND address = ?')
          .run(account, address).changes;
        db.prepare('DELETE FROM feedback_addresses WHERE account = ? AND address = ?').run(account, address);
        return removed;
      })();
    },
    async eraseEverywhere(address) {
      return db.transaction(() => {
        const removed = db.prepare('DELETE FROM feedback_events WHERE address = ?').run(address).changes;
        db.prepare('DELETE FROM feedback_addresses WHERE address = ?').run(address);
        return removed;
      })();
    },
    async prune(before) {
      return db.transaction(() => {
        const touched = db
          .prepare('SELECT DISTINCT account, address FROM feedback_events WHERE at < ?')
          .all(before) as { account: string; address: string }[];
        const removed = db.prepare('DELETE FROM feedback_events WHERE at < ?').run(before).changes;
        for (const { account, address } of touched) refold(account, address);
        db.prepare('DELETE FROM feedback_verdict_changes WHERE at < ?').run(before);
        return removed;
      })();
    },
    async close() {
      if (db.open) db.close();
    },
  };
}
