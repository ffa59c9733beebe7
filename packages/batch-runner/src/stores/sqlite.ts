import type { SqliteDriver } from '@svc/core';
import { createId, createPrivateDatabaseFile, importOptionalPeer } from '@svc/core';
import type BetterSqlite3 from 'better-sqlite3';
import type {
  Delivery,
  DeliveryAttempt,
  DeliveryState,
  EventView,
  JobRecord,
  JobScope,
  NewJob,
  RecordResult,
  Store,
} from '../store.js';
import { yieldToEventLoop } from '../yield.js';
import { beginInLog, completeInLog } from './attempt-log.js';
import { checkJobQuota, type QuotaCounts } from './quota.js';
import { driverModulePath, walCheckpoints } from './sqlite-checkpointer.js';
import { abandonedJobError, addCounts, tallyChunk } from './tally.js';

/** Options of the SQLite store. */
export interface SqliteStoreOptions {
  /** Database file; created if missing. `:memory:` works but keeps nothing. */
  path: string;
  /** Refuse to create the file: for readers, where a missing file means a wrong path. @default false */
  mustExist?: boolean;
  /**
   * Milliseconds a write waits for another process's lock.
   * @default 5000
   */
  busyTimeoutMs?: number;
  /**
   * better-sqlite3's `Database` class, for an app that depends on better-sqlite3 itself: pass
   * `(await import('better-sqlite3')).default`. Needed where this package cannot see the app's
   * copy: an optional peer resolves from this package's folder, and a global npm install puts
   * the app's better-sqlite3 under the app, not beside this package (the svc CLI passes its own).
   * @default the better-sqlite3 this package resolves, loaded on first use
   */
  driver?: SqliteDriver;
}

// The jobs table as this version writes it. Idempotency keys are unique per owning account (an
// index on an expression, because a UNIQUE over a NULL account would let a key repeat).
const JOBS_TABLE = (name: string) => `CREATE TABLE IF NOT EXISTS ${name} (
  id TEXT PRIMARY KEY, account_id TEXT, sandbox INTEGER NOT NULL DEFAULT 0, type TEXT NOT NULL, status TEXT NOT NULL, total INTEGER NOT NULL,
  processed INTEGER NOT NULL DEFAULT 0, failed INTEGER NOT NULL DEFAULT 0, counts TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL, started_at TEXT, completed_at TEXT, webhook_url TEXT,
  idempotency_key TEXT, error TEXT, chunks_left INTEGER NOT NULL,
  abandoned INTEGER NOT NULL DEFAULT 0, abandon_reason TEXT, request_hash TEXT
)`;
const JOB_INDEXES = `
CREATE UNIQUE INDEX IF NOT EXISTS jobs_idempotency ON jobs (ifnull(account_id, ''), idempotency_key)
  WHERE idempotency_key IS NOT NULL;
CREATE INDEX IF NOT EXISTS jobs_account ON jobs (account_id, id);
CREATE INDEX IF NOT EXISTS jobs_finished ON jobs (sandbox, completed_at)
  WHERE status IN ('completed', 'failed', 'cancelled');
`;
const SCHEMA = `
${JOBS_TABLE('jobs')};
CREATE TABLE IF NOT EXISTS chunks (
  job_id TEXT NOT NULL, chunk INTEGER NOT NULL, start INTEGER NOT NULL, end INTEGER NOT NULL,
  state TEXT NOT NULL, owner TEXT, lease_until INTEGER NOT NULL DEFAULT 0,
  available_at INTEGER NOT NULL DEFAULT 0, attempts INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (job_id, chunk)
);
CREATE INDEX IF NOT EXISTS chunks_claimable ON chunks (state, available_at);
CREATE TABLE IF NOT EXISTS outbox (
  event_id TEXT PRIMARY KEY, job_id TEXT NOT NULL, type TEXT NOT NULL, url TEXT NOT NULL,
  created INTEGER NOT NULL, state TEXT NOT NULL, next_attempt_at INTEGER NOT NULL,
  first_attempt_at INTEGER, owner TEXT, lease_until INTEGER NOT NULL DEFAULT 0,
  attempts TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX IF NOT EXISTS outbox_due ON outbox (state, next_attempt_at);
-- Records of a job being inserted in slices, whose jobs row (written last) does not exist yet;
-- a process that died mid-insert leaves its marker, and the next open removes the records.
CREATE TABLE IF NOT EXISTS inserting (job_id TEXT PRIMARY KEY, started_at INTEGER NOT NULL);
-- Records of a deleted job (retention) still being removed in slices; the next open finishes.
CREATE TABLE IF NOT EXISTS purging (job_id TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS records (
  job_id TEXT NOT NULL, idx INTEGER NOT NULL, input TEXT NOT NULL, result TEXT,
  PRIMARY KEY (job_id, idx)
) WITHOUT ROWID;
`;

type JobRow = Omit<JobRecord, 'counts' | 'error' | 'sandbox'> & {
  counts: string;
  error: string | null;
  sandbox: number;
};
type OutboxRow = {
  event_id: string;
  job_id: string;
  type: Delivery['type'];
  url: string;
  created: number;
  state: DeliveryState;
  lease_until: number;
  account_id: string | null;
  next_attempt_at: number;
  first_attempt_at: number | null;
  owner: string | null;
  attempts: string;
};
type ChunkRow = { job_id: string; chunk: number; start: number; end: number; attempts: number };

// Loaded on first use, so apps on the memory store never need the native addon. The cause's
// first line is kept in the message: a missing package and a missing native build need different fixes.
async function loadBetterSqlite3(): Promise<typeof BetterSqlite3> {
  const { default: Database } = await importOptionalPeer(() => import('better-sqlite3'), {
    user: 'the SQLite store',
    needs: 'better-sqlite3',
    install: 'better-sqlite3@12',
    from: '@svc/batch-runner',
    otherwise: 'passed as the `driver` option',
  });
  return Database;
}

/**
 * A Store in one SQLite file (better-sqlite3, WAL): the embedded default. Every method is one
 * transaction, so a process killed at any moment leaves either all or none of a chunk's results
 * and counters; WAL checkpoints run in a worker thread (sqlite-checkpointer.ts). better-sqlite3
 * is an optional peer dependency, loaded on first use.
 */
export async function createSqliteStore(options: SqliteStoreOptions): Promise<Store> {
  const Database = (options.driver as typeof BetterSqlite3 | undefined) ?? (await loadBetterSqlite3());
  let db: BetterSqlite3.Database;
  try {
    if (!options.mustExist) createPrivateDatabaseFile(options.path);
    db = new Database(options.path, { fileMustExist: options.mustExist ?? false });
  } catch (error) {
    const reason =
      options.mustExist && (error as { code?: string }).code === 'SQLITE_CANTOPEN'
        ? 'no such file'
        : (error as Error).message;
    throw new Error(`cannot open the job database ${options.path}: ${reason}`, { cause: error });
  }
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
  db.exec(SCHEMA);
  migrate(db);
  db.exec(JOB_INDEXES);
  dropAbandonedInserts(db, Date.now());
  // WAL checkpoints run in a worker thread, not inside this connection's commits, and every write
  // first awaits the one in progress (sqlite-checkpointer.ts).
  const checkpoints = walCheckpoints(db, options.path, driverModulePath(Database));
  /**
   * Runs one write (a transaction or a statement) once the worker's checkpoint in progress, if
   * any, is over, then tells the checkpoints a write was committed. Every write of the store goes
   * through here.
   */
  const write = async <T>(run: () => T): Promise<T> => {
    await checkpoints.pending();
    const result = run();
    checkpoints.wrote();
    return result;
  };

  const toJob = (row: JobRow | undefined): JobRecord | null => {
    if (!row) return null;
    const {
      chunks_left: _left,
      abandoned: _abandoned,
      abandon_reason: _reason,
      ...rest
    } = row as JobRow & { chunks_left: number; abandoned: number; abandon_reason: string | null };
    return {
      ...rest,
      sandbox: row.sandbox === 1,
      counts: JSON.parse(row.counts),
      error: row.error ? JSON.parse(row.error) : null,
    };
  };
  const statements = {
    jobById: db.prepare<[string], JobRow>('SELECT * FROM jobs WHERE id = ?'),
    jobByKey: db.prepare<[string, string], JobRow>(
      `SELECT * FROM jobs WHERE ifnull(account_id, '') = ? AND idempotency_key = ?`,
    ),
    insertJob: db.prepare(
      `INSERT INTO jobs (id, account_id, sandbox, type, status, total, created_at, webhook_url, idempotency_key, request_hash, chunks_left)
       VALUES (@id, @account_id, @sandbox, @type, 'queued', @total, @created_at, @webhook_url, @idempotency_key, @request_hash, @chunks_left)`,
    ),
    insertChunk: db.prepare(
      `INSERT INTO chunks (job_id, chunk, start, end, state) VALUES (?, ?, ?, ?, 'pending')`,
    ),
    insertRecord: db.prepare('INSERT INTO records (job_id, idx, input) VALUES (?, ?, ?)'),
    expired: db.prepare<[number, string, number], { id: string; total: number }>(
      `SELECT j.id, j.total FROM jobs j
       WHERE j.sandbox = ? AND j.status IN ('completed', 'failed', 'cancelled') AND j.completed_at < ?
         AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.job_id = j.id AND o.state = 'pending')
       ORDER BY j.completed_at LIMIT ?`,
    ),
    deleteJob: db.prepare('DELETE FROM jobs WHERE id = ?'),
    deleteChunks: db.prepare('DELETE FROM chunks WHERE job_id = ?'),
    deleteEvents: db.prepare('DELETE FROM outbox WHERE job_id = ?'),
    startPurging: db.prepare('INSERT OR IGNORE INTO purging (job_id) VALUES (?)'),
    donePurging: db.prepare('DELETE FROM purging WHERE job_id = ?'),
    dropRecordSlice: db.prepare('DELETE FROM records WHERE job_id = ? AND idx >= ? AND idx < ?'),
    quotaCounts: db.prepare(
      `SELECT
         (SELECT count(*) FROM jobs WHERE account_id IS @account AND sandbox = @sandbox
            AND created_at >= @since) AS jobsToday,
         (SELECT ifnull(sum(total - processed), 0) FROM jobs WHERE account_id IS @account
            AND sandbox = @sandbox AND status IN ('queued', 'running')) AS recordsInFlight`,
    ),
    startInserting: db.prepare('INSERT INTO inserting (job_id, started_at) VALUES (?, ?)'),
    doneInserting: db.prepare('DELETE FROM inserting WHERE job_id = ?'),
    dropRecords: db.prepare('DELETE FROM records WHERE job_id = ?'),
    claimable: db.prepare<[number, number], ChunkRow>(
      `SELECT c.job_id, c.chunk, c.start, c.end, c.attempts FROM chunks c JOIN jobs j ON j.id = c.job_id
       WHERE j.status IN ('queued', 'running')
         AND ((c.state = 'pending' AND c.available_at <= ?) OR (c.state = 'leased' AND c.lease_until < ?))
       ORDER BY c.job_id, c.chunk LIMIT 1`,
    ),
    lease: db.prepare(
      `UPDATE chunks SET state = 'leased', owner = ?, lease_until = ?, attempts = attempts + 1 WHERE job_id = ? AND chunk = ?`,
    ),
    startJob: db.prepare(
      `UPDATE jobs SET status = 'running', started_at = ? WHERE id = ? AND status = 'queued'`,
    ),
    inputs: db.prepare<[string, number, number], { idx: number; input: string }>(
      'SELECT idx, input FROM records WHERE job_id = ? AND idx >= ? AND idx < ? ORDER BY idx',
    ),
    renew: db.prepare(
      `UPDATE chunks SET lease_until = ? WHERE job_id = ? AND chunk = ? AND state = 'leased' AND owner = ?`,
    ),
    held: db.prepare<[string, number, string], { status: string }>(
      `SELECT j.status FROM chunks c JOIN jobs j ON j.id = c.job_id
       WHERE c.job_id = ? AND c.chunk = ? AND c.state = 'leased' AND c.owner = ?`,
    ),
    saveResult: db.prepare('UPDATE records SET result = ? WHERE job_id = ? AND idx = ?'),
    finishChunk: db.prepare(`UPDATE chunks SET state = 'done', owner = NULL WHERE job_id = ? AND chunk = ?`),
    count: db.prepare(
      `UPDATE jobs SET processed = processed + ?, failed = failed + ?, counts = ?, chunks_left = chunks_left - 1,
       abandoned = abandoned + ?, abandon_reason = COALESCE(abandon_reason, ?) WHERE id = ?`,
    ),
    finishJob: db.prepare<
      [string, string],
      { abandoned: number; abandon_reason: string | null; total: number }
    >(
      `UPDATE jobs SET status = CASE WHEN abandoned > 0 THEN 'failed' ELSE 'completed' END, completed_at = ?
       WHERE id = ? AND chunks_left = 0 RETURNING abandoned, abandon_reason, total`,
    ),
    setError: db.prepare('UPDATE jobs SET error = ? WHERE id = ?'),
    release: db.prepare(
      `UPDATE chunks SET state = 'pending', owner = NULL, lease_until = 0, available_at = ?, attempts = attempts - ?
       WHERE job_id = ? AND chunk = ? AND state = 'leased' AND owner = ?`,
    ),
    cancel: db.prepare(
      `UPDATE jobs SET status = 'cancelled', completed_at = ? WHERE id = ? AND status IN ('queued', 'running')`,
    ),
    cancelChunks: db.prepare(
      `UPDATE chunks SET state = 'cancelled', owner = NULL WHERE job_id = ? AND state != 'done'`,
    ),
    enqueue: db.prepare(
      `INSERT INTO outbox (event_id, job_id, type, url, created, state, next_attempt_at)
       SELECT ?, id, ?, webhook_url, ?, 'pending', ? FROM jobs WHERE id = ? AND webhook_url IS NOT NULL`,
    ),
    due: db.prepare<[number, number], OutboxRow>(
      `SELECT o.*, j.account_id FROM outbox o LEFT JOIN jobs j ON j.id = o.job_id
       WHERE o.state = 'pending' AND o.next_attempt_at <= ? AND (o.owner IS NULL OR o.lease_until < ?)
       ORDER BY o.next_attempt_at LIMIT 1`,
    ),
    leaseEvent: db.prepare('UPDATE outbox SET owner = ?, lease_until = ? WHERE event_id = ?'),
    eventById: db.prepare<[string], OutboxRow>(
      'SELECT o.*, j.account_id FROM outbox o LEFT JOIN jobs j ON j.id = o.job_id WHERE o.event_id = ?',
    ),
    saveAttempt: db.prepare(
      `UPDATE outbox SET attempts = ?, first_attempt_at = COALESCE(first_attempt_at, ?), owner = NULL,
       state = ?, next_attempt_at = ? WHERE event_id = ?`,
    ),
    beginAttempt: db.prepare(
      'UPDATE outbox SET attempts = ?, first_attempt_at = COALESCE(first_attempt_at, ?) WHERE event_id = ?',
    ),
    eventsOfJob: db.prepare<[string], OutboxRow>(
      'SELECT * FROM outbox WHERE job_id = ? ORDER BY created, event_id',
    ),
    listAll: db.prepare<[string, number], JobRow>('SELECT * FROM jobs WHERE id < ? ORDER BY id DESC LIMIT ?'),
    listOfAccount: db.prepare<[string, string, number], JobRow>(
      'SELECT * FROM jobs WHERE account_id = ? AND id < ? ORDER BY id DESC LIMIT ?',
    ),
    results: db.prepare<[string, number, number], { idx: number; result: string }>(
      'SELECT idx, result FROM records WHERE job_id = ? AND idx >= ? AND result IS NOT NULL ORDER BY idx LIMIT ?',
    ),
  };

  const existingFor = (input: NewJob) =>
    input.idempotency_key
      ? toJob(statements.jobByKey.get(input.account_id ?? '', input.idempotency_key))
      : null;
  // The job row and its chunks, last, once every record is in: until then no read or claim sees
  // the job, so it appears whole or not at all.
  const checkQuota = (input: NewJob) => {
    if (!input.quota) return;
    const counts = statements.quotaCounts.get({
      account: input.account_id ?? null,
      sandbox: input.sandbox ? 1 : 0,
      since: new Date(input.quota.dayStart).toISOString(),
    }) as QuotaCounts;
    checkJobQuota(input.quota, counts, {
      total: input.records.length,
      sandbox: input.sandbox ?? false,
      now: input.now.getTime(),
    });
  };
  const create = db.transaction((input: NewJob) => {
    const existing = existingFor(input);
    if (existing) {
      statements.dropRecords.run(input.id);
      statements.doneInserting.run(input.id);
      return { job: existing, created: false };
    }
    // Again, in the transaction that makes the job: another create may have come in meanwhile.
    checkQuota(input);
    const chunkCount = Math.ceil(input.records.length / input.chunkSize);
    statements.insertJob.run({
      id: input.id,
      account_id: input.account_id ?? null,
      sandbox: input.sandbox ? 1 : 0,
      type: input.type,
      total: input.records.length,
      created_at: input.now.toISOString(),
      webhook_url: input.webhook_url,
      idempotency_key: input.idempotency_key,
      request_hash: input.request_hash,
      chunks_left: chunkCount,
    });
    for (let chunk = 0; chunk < chunkCount; chunk++) {
      const start = chunk * input.chunkSize;
      statements.insertChunk.run(
        input.id,
        chunk,
        start,
        Math.min(input.records.length, start + input.chunkSize),
      );
    }
    statements.doneInserting.run(input.id);
    return { job: toJob(statements.jobById.get(input.id)) as JobRecord, created: true };
  });
  const insertSlice = db.transaction((id: string, records: readonly string[], from: number, to: number) => {
    if (from === 0) statements.startInserting.run(id, Date.now());
    for (let index = from; index < to; index++) statements.insertRecord.run(id, index, records[index]);
  });
  // The job disappears for every reader at once; its records follow in slices (a marker in
  // `purging` lets the next open finish what a crash left).
  const deleteJobRows = db.transaction((id: string) => {
    statements.deleteJob.run(id);
    statements.deleteChunks.run(id);
    statements.deleteEvents.run(id);
    statements.startPurging.run(id);
  });
  const abandonInsert = db.transaction((id: string) => {
    statements.dropRecords.run(id);
    statements.doneInserting.run(id);
  });

  const claim = db.transaction(
    (owner: string, now: number, leaseMs: number, types: readonly string[] | null) => {
      const row = types
        ? db
            .prepare<unknown[], ChunkRow>(
              `SELECT c.job_id, c.chunk, c.start, c.end, c.attempts FROM chunks c JOIN jobs j ON j.id = c.job_id
             WHERE j.status IN ('queued', 'running') AND j.type IN (${types.map(() => '?').join(',')})
               AND ((c.state = 'pending' AND c.available_at <= ?) OR (c.state = 'leased' AND c.lease_until < ?))
             ORDER BY c.job_id, c.chunk LIMIT 1`,
            )
            .get(...types, now, now)
        : statements.claimable.get(now, now);
      if (!row) return null;
      statements.lease.run(owner, now + leaseMs, row.job_id, row.chunk);
      statements.startJob.run(new Date(now).toISOString(), row.job_id);
      return {
        jobId: row.job_id,
        chunk: row.chunk,
        owner,
        leaseUntil: now + leaseMs,
        attempts: row.attempts,
        records: statements.inputs
          .all(row.job_id, row.start, row.end)
          .map(({ idx, input }) => ({ index: idx, input })),
      };
    },
  );

  const commit = db.transaction(
    (lease: Parameters<Store['commitChunk']>[0], results: readonly RecordResult[], now: number) => {
      const held = statements.held.get(lease.jobId, lease.chunk, lease.owner);
      if (held?.status !== 'running') return 'lost_lease' as const;
      const job = toJob(statements.jobById.get(lease.jobId)) as JobRecord;
      for (const result of results)
        statements.saveResult.run(JSON.stringify(result), lease.jobId, result.index);
      const tally = tallyChunk(results);
      addCounts(job.counts, tally.counts);
      statements.finishChunk.run(lease.jobId, lease.chunk);
      statements.count.run(
        tally.processed,
        tally.failed,
        JSON.stringify(job.counts),
        tally.abandoned,
        tally.abandonReason,
        lease.jobId,
      );
      const finished = statements.finishJob.get(new Date(now).toISOString(), lease.jobId);
      if (finished) {
        if (finished.abandoned > 0) {
          const error = abandonedJobError(finished.abandoned, finished.total, finished.abandon_reason);
          statements.setError.run(JSON.stringify(error), lease.jobId);
        }
        // The event is written in the same transaction as the state change: it cannot be lost.
        statements.enqueue.run(
          createId('evt', now),
          finished.abandoned > 0 ? 'batch.failed' : 'batch.completed',
          Math.floor(now / 1000),
          now,
          lease.jobId,
        );
      }
      return 'committed' as const;
    },
  );

  const cancel = db.transaction((id: string, now: number, scope?: JobScope) => {
    if (!inScope(toJob(statements.jobById.get(id)), scope)) return null;
    if (statements.cancel.run(new Date(now).toISOString(), id).changes > 0) {
      statements.cancelChunks.run(id);
      statements.enqueue.run(createId('evt', now), 'batch.cancelled', Math.floor(now / 1000), now, id);
    }
    return toJob(statements.jobById.get(id));
  });

  const toDelivery = (row: OutboxRow, owner: string): Delivery => ({
    eventId: row.event_id,
    jobId: row.job_id,
    type: row.type,
    url: row.url,
    created: row.created,
    firstAttemptAt: row.first_attempt_at,
    attempts: (JSON.parse(row.attempts) as DeliveryAttempt[]).length,
    owner,
    accountId: row.account_id,
  });
  const toView = (row: OutboxRow): EventView => ({
    eventId: row.event_id,
    jobId: row.job_id,
    type: row.type,
    url: row.url,
    created: row.created,
    state: row.state,
    nextAttemptAt: row.state === 'pending' ? row.next_attempt_at : null,
    attempts: JSON.parse(row.attempts) as DeliveryAttempt[],
  });
  const claimDue = db.transaction((owner: string, now: number, leaseMs: number): Delivery | null => {
    const row = statements.due.get(now, now);
    if (!row) return null;
    statements.leaseEvent.run(owner, now + leaseMs, row.event_id);
    return toDelivery(row, owner);
  });
  const claimOne = db.transaction(
    (eventId: string, owner: string, now: number, leaseMs: number, scope?: JobScope) => {
      const row = statements.eventById.get(eventId);
      if (!row || !inScope({ account_id: row.account_id }, scope)) return null;
      if (row.owner !== null && row.lease_until >= now) return 'busy' as const;
      statements.leaseEvent.run(owner, now + leaseMs, row.event_id);
      return { ...toDelivery(row, owner), resendOf: row.state };
    },
  );
  // The event's row while `delivery`'s lease holds (a finished event only for a resend).
  const heldEvent = (delivery: Delivery) => {
    const row = statements.eventById.get(delivery.eventId);
    if (!row || row.owner !== delivery.owner) return undefined;
    return row.state === 'pending' || delivery.resendOf !== undefined ? row : undefined;
  };
  const beginAttempt = db.transaction(
    (delivery: Delivery, begun: Pick<DeliveryAttempt, 'at' | 'trigger'>) => {
      const row = heldEvent(delivery);
      if (!row) return false;
      const attempts = beginInLog(JSON.parse(row.attempts) as DeliveryAttempt[], begun);
      statements.beginAttempt.run(JSON.stringify(attempts), begun.at, delivery.eventId);
      return true;
    },
  );
  const saveAttempt = db.transaction(
    (delivery: Delivery, attempt: DeliveryAttempt, state: string, next: number) => {
      const row = heldEvent(delivery);
      if (!row) return;
      const attempts = completeInLog(JSON.parse(row.attempts) as DeliveryAttempt[], attempt);
      statements.saveAttempt.run(JSON.stringify(attempts), attempt.at, state, next, delivery.eventId);
    },
  );

  return {
    async claimDelivery(owner, now, leaseMs) {
      return write(() => claimDue.immediate(owner, now, leaseMs));
    },
    async claimEvent(eventId, owner, now, leaseMs, scope) {
      return write(() => claimOne.immediate(eventId, owner, now, leaseMs, scope));
    },
    async beginAttempt(delivery, begun) {
      return write(() => beginAttempt.immediate(delivery, begun));
    },
    async recordAttempt(delivery, attempt, outcome) {
      await write(() =>
        saveAttempt.immediate(
          delivery,
          attempt,
          outcome.state,
          outcome.state === 'pending' ? outcome.nextAttemptAt : 0,
        ),
      );
    },
    async deliveries(jobId) {
      return statements.eventsOfJob.all(jobId).map(toView);
    },
    async getEvent(eventId, scope) {
      const row = statements.eventById.get(eventId);
      return row && inScope({ account_id: row.account_id }, scope) ? toView(row) : null;
    },
    async createJob(input) {
      // A retried request's job is found without inserting anything.
      const existing = existingFor(input);
      if (existing) return { job: existing, created: false };
      // Refused before any record is written, when it is clear already.
      checkQuota(input);
      // Records go in slices of INSERT_SLICE_RECORDS, one transaction each, with the event loop
      // free between them: 50,000 records in one transaction held it for about 0.2 s.
      try {
        for (let from = 0; from < input.records.length; from += INSERT_SLICE_RECORDS) {
          if (from > 0) await yieldToEventLoop();
          await write(() =>
            insertSlice.immediate(
              input.id,
              input.records,
              from,
              Math.min(input.records.length, from + INSERT_SLICE_RECORDS),
            ),
          );
        }
        return write(() => create.immediate(input));
      } catch (error) {
        await write(() => abandonInsert.immediate(input.id));
        throw error;
      }
    },
    async getJob(id, scope) {
      const job = toJob(statements.jobById.get(id));
      return inScope(job, scope) ? job : null;
    },
    async listJobs({ cursor, limit, accountId }) {
      // The cursor is the last id seen; '~' sorts after every `batch_…` id, so no cursor = from the top.
      const rows = (
        accountId === undefined
          ? statements.listAll.all(cursor ?? '~', limit + 1)
          : statements.listOfAccount.all(accountId, cursor ?? '~', limit + 1)
      ).map((row) => toJob(row) as JobRecord);
      const has_more = rows.length > limit;
      const data = rows.slice(0, limit);
      return { data, next_cursor: has_more ? (data.at(-1)?.id ?? null) : null, has_more };
    },
    async claimChunk(owner, now, leaseMs, types) {
      return write(() => claim.immediate(owner, now, leaseMs, types ?? null));
    },
    async renewLease(lease, now, leaseMs) {
      const renewed =
        (await write(() => statements.renew.run(now + leaseMs, lease.jobId, lease.chunk, lease.owner)))
          .changes > 0;
      if (renewed) lease.leaseUntil = now + leaseMs;
      return renewed;
    },
    async commitChunk(lease, results, now) {
      return write(() => commit.immediate(lease, results, now));
    },
    async releaseChunk(lease, retryAt, failed = true) {
      await write(() =>
        statements.release.run(retryAt, failed ? 0 : 1, lease.jobId, lease.chunk, lease.owner),
      );
    },
    async cancelJob(id, now, scope) {
      return write(() => cancel.immediate(id, now, scope));
    },
    async results(jobId, { cursor, limit }) {
      const rows = statements.results.all(jobId, cursor ? Number(cursor) : 0, limit + 1);
      const has_more = rows.length > limit;
      const data = rows.slice(0, limit).map((row) => JSON.parse(row.result) as RecordResult);
      return { data, next_cursor: has_more ? String((data.at(-1)?.index ?? 0) + 1) : null, has_more };
    },
    async deleteFinishedJobs({ finishedBefore, sandbox, limit }) {
      const expired = statements.expired.all(sandbox ? 1 : 0, new Date(finishedBefore).toISOString(), limit);
      for (const { id, total } of expired) {
        await write(() => deleteJobRows.immediate(id));
        for (let from = 0; from < total; from += INSERT_SLICE_RECORDS) {
          await yieldToEventLoop();
          await write(() => statements.dropRecordSlice.run(id, from, from + INSERT_SLICE_RECORDS));
        }
        await write(() => statements.donePurging.run(id));
      }
      return expired.length;
    },
    async close() {
      // The worker's connection first: the last one to close checkpoints and removes the WAL.
      await checkpoints.close();
      db.close();
    },
  };
}

/** Records per insert transaction of a new job (about 4 ms of work each on the development machine). */
export const INSERT_SLICE_RECORDS = 1000;

/** How old an unfinished insert must be to count as abandoned by a process that died. */
const ABANDONED_INSERT_MS = 10 * 60_000;

/**
 * Removes the records of inserts a dead process left (their job row was never written) and of
 * deleted jobs whose records were still being removed when a process died.
 */
function dropAbandonedInserts(db: BetterSqlite3.Database, now: number): void {
  db.transaction(() => {
    for (const { job_id } of db.prepare<[], { job_id: string }>('SELECT job_id FROM purging').all()) {
      db.prepare('DELETE FROM records WHERE job_id = ?').run(job_id);
      db.prepare('DELETE FROM purging WHERE job_id = ?').run(job_id);
    }
    const stale = db
      .prepare<[number], { job_id: string }>('SELECT job_id FROM inserting WHERE started_at < ?')
      .all(now - ABANDONED_INSERT_MS);
    for (const { job_id } of stale) {
      db.prepare('DELETE FROM records WHERE job_id = ?').run(job_id);
      db.prepare('DELETE FROM inserting WHERE job_id = ?').run(job_id);
    }
  }).immediate();
}

function inScope(job: Pick<JobRecord, 'account_id'> | null, scope?: JobScope): boolean {
  return !!job && (scope?.accountId === undefined || job.account_id === scope.accountId);
}

/**
 * Brings a database written by an earlier version up to the current schema, in one transaction
 * (another process opening the same file at once waits, then finds nothing left to do).
 */
function migrate(db: BetterSqlite3.Database): void {
  const columnsOf = () =>
    new Set(
      db
        .prepare<[string], { name: string }>('SELECT name FROM pragma_table_info(?)')
        .all('jobs')
        .map((column) => column.name),
    );
  const added: Array<[string, string]> = [
    ['abandoned', 'INTEGER NOT NULL DEFAULT 0'],
    ['abandon_reason', 'TEXT'],
    ['request_hash', 'TEXT'],
    ['sandbox', 'INTEGER NOT NULL DEFAULT 0'],
  ];
  const current = columnsOf();
  if (current.has('account_id') && added.every(([name]) => current.has(name))) return;
  db.transaction(() => {
    const columns = columnsOf();
    for (const [name, definition] of added)
      if (!columns.has(name)) db.exec(`ALTER TABLE jobs ADD COLUMN ${name} ${definition}`);
    if (columns.has('account_id')) return;
    // Jobs gained an owning account, and their idempotency keys became unique per account: the
    // old table's UNIQUE(idempotency_key) cannot be dropped in SQLite, so the table is rebuilt.
    // Old jobs have no owner (account_id NULL): the CLI and libraries still see them.
    const copied =
      'id, type, status, total, processed, failed, counts, created_at, started_at, completed_at, webhook_url, idempotency_key, error, chunks_left, abandoned, abandon_reason, request_hash, sandbox';
    db.exec(`${JOBS_TABLE('jobs_migrating')};
      INSERT INTO jobs_migrating (${copied}) SELECT ${copied} FROM jobs;
      DROP TABLE jobs;
      ALTER TABLE jobs_migrating RENAME TO jobs;`);
  }).immediate();
}
