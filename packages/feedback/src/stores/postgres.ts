import {
  checkedPostgresSchema,
  openMigratedPostgres,
  type PgPool,
  type PgPoolClient,
  type PostgresMigration,
  type PostgresPoolOptions,
} from '@svc/core/postgres';
import { domainOf, type FeedbackKind } from '../event.js';
import { localPartPattern, type PatternCount } from '../pattern.js';
import {
  type AddressSummary,
  addressOutcome,
  foldAll,
  foldEvent,
  mergeByAddress,
  mergeStoredSummaries,
} from '../summary.js';
import { countPatterns } from './count-patterns.js';
import { type EventRow, fromEventRow, toEventRow } from './sql-rows.js';
import { checkRecordSize, type FeedbackStore, feedbackStats } from './store.js';

/** Options of createPostgresFeedbackStore (the pool options are `@svc/core/postgres`'s). */
export interface PostgresFeedbackStoreOptions extends PostgresPoolOptions {
  /** The schema holding the store's tables, created if missing. @default 'svc_feedback' */
  schema?: string;
}

const MIGRATIONS: readonly PostgresMigration[] = [
  {
    name: 'feedback events, per-address summaries and verdict changes',
    sql: (s) => `
CREATE TABLE IF NOT EXISTS ${s}.feedback_events (
  account TEXT NOT NULL, provider TEXT NOT NULL, event_id TEXT NOT NULL,
  address TEXT NOT NULL, kind TEXT NOT NULL, at TEXT NOT NULL,
  bounce_type TEXT, diagnostic TEXT, reading TEXT,
  PRIMARY KEY (account, provider, event_id)
);
CREATE INDEX IF NOT EXISTS feedback_events_address ON ${s}.feedback_events (account, address);
CREATE INDEX IF NOT EXISTS feedback_events_at ON ${s}.feedback_events (at);
CREATE TABLE IF NOT EXISTS ${s}.feedback_addresses (
  account TEXT NOT NULL, address TEXT NOT NULL, domain TEXT NOT NULL, pattern TEXT NOT NULL,
  outcome TEXT, last_event_at TEXT NOT NULL, summary TEXT NOT NULL,
  PRIMARY KEY (account, address)
);
CREATE INDEX IF NOT EXISTS feedback_addresses_domain ON ${s}.feedback_addresses (domain, account);
CREATE TABLE IF NOT EXISTS ${s}.feedback_verdict_changes (account TEXT NOT NULL, at TEXT NOT NULL, change TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS feedback_verdict_changes_at ON ${s}.feedback_verdict_changes (account, at);
CREATE TABLE IF NOT EXISTS ${s}.feedback_providers (
  account TEXT NOT NULL, provider TEXT NOT NULL, sealed TEXT NOT NULL, configured_at TEXT NOT NULL,
  PRIMARY KEY (account, provider)
);`,
  },
];

/**
 * A feedback store in PostgreSQL, shared by every `svc serve` process on the database: an event
 * received by one machine is used by all, and an erase applies on all at once. Writes to one
 * address take a transaction-scoped advisory lock, so two machines folding events of the same
 * address never lose one.
 */
export async function createPostgresFeedbackStore(
  options: PostgresFeedbackStoreOptions,
): Promise<FeedbackStore> {
  const schema = checkedPostgresSchema(options.schema, 'svc_feedback');
  const { opened } = await openMigratedPostgres(
    options,
    {
      store: 'the PostgreSQL feedback store',
      database: 'the delivery feedback database',
      from: '@svc/feedback',
      loadPg: () => import('pg'),
      defaultPoolSize: 4,
    },
    {
      schema,
      migrations: MIGRATIONS,
      table: 'feedback_migrations',
      // Any constant shared by every process that migrates this store (other stores' differ).
      lockKey: 0x5_fe_ed,
      versionOf: 'feedback store version',
      packageName: '@svc/feedback',
    },
  );
  const { pool: db, owned } = opened;
  const t = (name: string) => `"${schema}".${name}`;

  const saveSummary = (client: PgPoolClient, account: string, summary: AddressSummary) =>
    client.query(
      `INSERT INTO ${t('feedback_addresses')} (account, address, domain, pattern, outcome, last_event_at, summary)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (account, address) DO UPDATE SET outcome = EXCLUDED.outcome,
         last_event_at = EXCLUDED.last_event_at, summary = EXCLUDED.summary`,
      [
        account,
        summary.address,
        domainOf(summary.address),
        localPartPattern(summary.address),
        addressOutcome(summary),
        summary.lastEventAt,
        JSON.stringify(summary),
      ],
    );
  const lockAddresses = async (client: PgPoolClient, account: string, addresses: Iterable<string>) => {
    // In a fixed order, so two writers never wait on each other in a cycle.
    for (const address of [...new Set(addresses)].sort()) {
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 1))', [
        `${schema} ${account} ${address}`,
      ]);
    }
  };
  const refold = async (client: PgPoolClient, account: string, address: string) => {
    const { rows } = await client.query<EventRow>(
      `SELECT * FROM ${t('feedback_events')} WHERE account = $1 AND address = $2`,
      [account, address],
    );
    const summary = foldAll(rows.map(fromEventRow)).get(address);
    if (summary) await saveSummary(client, account, summary);
    else
      await client.query(`DELETE FROM ${t('feedback_addresses')} WHERE account = $1 AND address = $2`, [
        account,
        address,
      ]);
  };

  return {
    async record(account, events) {
      checkRecordSize(events);
      if (events.length === 0) return { stored: 0, duplicates: 0 };
      const stored = await inTransaction(db, async (client) => {
        await lockAddresses(
          client,
          account,
          events.map((event) => event.address),
        );
        let count = 0;
        for (const event of events) {
          const row = toEventRow(event);
          const inserted = await client.query(
            `INSERT INTO ${t('feedback_events')} (account, provider, event_id, address, kind, at, bounce_type, diagnostic, reading)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING`,
            [
              account,
              row.provider,
              row.event_id,
              row.address,
              row.kind,
              row.at,
              row.bounce_type,
              row.diagnostic,
              row.reading,
            ],
          );
          if (inserted.rowCount === 0) continue;
          count += 1;
          const { rows } = await client.query<{ summary: string }>(
            `SELECT summary FROM ${t('feedback_addresses')} WHERE account = $1 AND address = $2`,
            [account, event.address],
          );
          const previous = rows[0] ? (JSON.parse(rows[0].summary) as AddressSummary) : null;
          await saveSummary(client, account, foldEvent(previous, event));
        }
        return count;
      });
      return { stored, duplicates: events.length - stored };
    },
    async summary(scope, address) {
      const { rows } =
        scope === 'shared'
          ? await db.query<{ summary: string }>(
              `SELECT summary FROM ${t('feedback_addresses')} WHERE address = $1`,
              [address],
            )
          : await db.query<{ summary: string }>(
              `SELECT summary FROM ${t('feedback_addresses')} WHERE account = $1 AND address = $2`,
              [scope.account, address],
            );
      return mergeStoredSummaries(rows.map((row) => row.summary));
    },
    async summaries(scope, addresses) {
      checkRecordSize(addresses, 'summaries reads', 'addresses');
      const unique = [...new Set(addresses)];
      if (unique.length === 0) return new Map();
      const { rows } =
        scope === 'shared'
          ? await db.query<{ summary: string }>(
              `SELECT summary FROM ${t('feedback_addresses')} WHERE address = ANY($1)`,
              [unique],
            )
          : await db.query<{ summary: string }>(
              `SELECT summary FROM ${t('feedback_addresses')} WHERE account = $1 AND address = ANY($2)`,
              [scope.account, unique],
            );
      return mergeByAddress(rows.map((row) => row.summary));
    },
    async patterns(scope, domain) {
      if (scope !== 'shared') {
        const { rows } = await db.query<PatternCount>(
          `SELECT pattern, COUNT(*) FILTER (WHERE outcome = 'delivered')::int AS delivered,
                  COUNT(*) FILTER (WHERE outcome = 'bounced')::int AS bounced
           FROM ${t('feedback_addresses')} WHERE domain = $1 AND account = $2 AND outcome IS NOT NULL
           GROUP BY pattern ORDER BY pattern COLLATE "C"`,
          [domain, scope.account],
        );
        return rows;
      }
      const { rows } = await db.query<{ summary: string }>(
        `SELECT summary FROM ${t('feedback_addresses')} WHERE domain = $1`,
        [domain],
      );
      return countPatterns(mergeByAddress(rows.map((row) => row.summary)).values());
    },
    async noteVerdictChange(account, change, at) {
      await db.query(
        `INSERT INTO ${t('feedback_verdict_changes')} (account, at, change) VALUES ($1, $2, $3)`,
        [account, at, change],
      );
    },
    async stats(account, since, limit = 20) {
      const kinds = await db.query<{ provider: string; kind: FeedbackKind; n: number }>(
        `SELECT provider, kind, COUNT(*)::int AS n FROM ${t('feedback_events')}
         WHERE account = $1 AND at >= $2 GROUP BY provider, kind`,
        [account, since],
      );
      const domains = await db.query<{ domain: string; delivered: number; bounced: number }>(
        `SELECT domain, COUNT(*) FILTER (WHERE outcome = 'delivered')::int AS delivered,
                COUNT(*) FILTER (WHERE outcome = 'bounced')::int AS bounced
         FROM ${t('feedback_addresses')} WHERE account = $1 AND last_event_at >= $2 AND outcome IS NOT NULL
         GROUP BY domain ORDER BY COUNT(*) DESC, domain COLLATE "C" LIMIT $3`,
        [account, since, limit],
      );
      const changes = await db.query<{ change: 'upgraded' | 'downgraded'; n: number }>(
        `SELECT change, COUNT(*)::int AS n FROM ${t('feedback_verdict_changes')} WHERE account = $1 AND at >= $2 GROUP BY change`,
        [account, since],
      );
      return feedbackStats(since, kinds.rows, domains.rows, changes.rows);
    },
    async setProvider(account, provider, sealed, at) {
      await db.query(
        `INSERT INTO ${t('feedback_providers')} (account, provider, sealed, configured_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (account, provider) DO UPDATE SET sealed = EXCLUDED.sealed, configured_at = EXCLUDED.configured_at`,
        [account, provider, sealed, at],
      );
    },
    async providerCredentials(account, provider) {
      const { rows } = await db.query<{ sealed: string }>(
        `SELECT sealed FROM ${t('feedback_providers')} WHERE account = $1 AND provider = $2`,
        [account, provider],
      );
      return rows[0]?.sealed ?? null;
    },
    async providers(account) {
      const { rows } = await db.query<{ provider: string; configured_at: string }>(
        `SELECT provider, configured_at FROM ${t('feedback_providers')} WHERE account = $1 ORDER BY provider COLLATE "C"`,
        [account],
      );
      return rows.map((row) => ({ provider: row.provider, configuredAt: row.configured_at }));
    },
    async removeProvider(account, provider) {
      const removed = await db.query(
        `DELETE FROM ${t('feedback_providers')} WHERE account = $1 AND provider = $2`,
        [account, provider],
      );
      return (removed.rowCount ?? 0) > 0;
    },
    async erase(account, address) {
      return inTransaction(db, async (client) => {
        await lockAddresses(client, account, [address]);
        const removed = await client.query(
          `DELETE FROM ${t('feedback_events')} WHERE account = $1 AND address = $2`,
          [account, address],
        );
        await client.query(`DELETE FROM ${t('feedback_addresses')} WHERE account = $1 AND address = $2`, [
          account,
          address,
        ]);
        return removed.rowCount ?? 0;
      });
    },
    async eraseEverywhere(address) {
      return inTransaction(db, async (client) => {
        const removed = await client.query(`DELETE FROM ${t('feedback_events')} WHERE address = $1`, [
          address,
        ]);
        await client.query(`DELETE FROM ${t('feedback_addresses')} WHERE address = $1`, [address]);
        return removed.rowCount ?? 0;
      });
    },
    async prune(before) {
      return inTransaction(db, async (client) => {
        const touched = await client.query<{ account: string; address: string }>(
          `SELECT DISTINCT account, address FROM ${t('feedback_events')} WHERE at < $1`,
          [before],
        );
        const removed = await client.query(`DELETE FROM ${t('feedback_events')} WHERE at < $1`, [before]);
        for (const { account, address } of touched.rows) {
          await lockAddresses(client, account, [address]);
          await refold(client, account, address);
        }
        await client.query(`DELETE FROM ${t('feedback_verdict_changes')} WHERE at < $1`, [before]);
        return removed.rowCount ?? 0;
      });
    },
    async close() {
      if (owned) await db.end();
    },
  };
}

async function inTransaction<T>(pool: PgPool, work: (client: PgPoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
