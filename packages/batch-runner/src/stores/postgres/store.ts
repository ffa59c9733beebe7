import { createId } from '@svc/core';
import type { PgQueryable } from '@svc/core/postgres';
import type { ChunkLease, JobRecord, JobScope, NewJob, RecordResult, Store } from '../../store.js';
import { ATTEMPT_IN_PROGRESS, ATTEMPT_INTERRUPTED } from '../attempt-log.js';
import { checkJobQuota, type QuotaCounts } from '../quota.js';
import { abandonedJobError, addCounts, tallyChunk } from '../tally.js';
import {
  checkedSchema,
  openPool,
  type PostgresStoreOptions,
  preparedQuery,
  Rollback,
  transaction,
} from './connect.js';
import { prepareSchema } from './migrations.js';
import {
  attemptsOf,
  type EventRow,
  JOB_COLUMNS,
  type JobRow,
  type OutboxRow,
  toDelivery,
  toJob,
  toView,
} from './rows.js';

// The advisory lock of quota checks (with a hash of the schema and account as the second key).
const QUOTA_LOCK_KEY = 0x5_ba_7c2;

const inScope = (job: Pick<JobRecord, 'account_id'> | undefined, scope?: JobScope) =>
  !!job && (scope?.accountId === undefined || job.account_id === scope.accountId);

/**
 * A Store in PostgreSQL, for several processes on several machines: claims are
 * `FOR UPDATE SKIP LOCKED`, so concurrent workers never wait on each other's chunk; a chunk's
 * results (one bulk INSERT), the job's counters and the webhook outbox row are written in one
 * transaction that first checks the lease. Locks are always taken chunk first, then job, so
 * claims, commits and cancels cannot deadlock. pg is an optional peer dependency, loaded on
 * first use; the schema is migrated when the store opens (see migratePostgresStore).
 */
export async function createPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  const schema = checkedSchema(options.schema);
  const opened = await openPool(options);
  try {
    await prepareSchema(opened, schema, options.migrate ?? true);
  } catch (error) {
    if (opened.owned) await opened.pool.end().catch(() => {});
    throw error;
  }
  const s = `"${schema}"`;
  const { pool } = opened;
  const q = preparedQuery();
  const iso = (ms: number) => new Date(ms).toISOString();

  const enqueue = (client: PgQueryable, jobId: string, type: string, now: number) =>
    q(
      client,
      `INSERT INTO ${s}.outbox (event_id, job_id, type, url, created, state, next_attempt_at)
       SELECT $1::text, id, $2::text, webhook_url, $3::bigint, 'pending', $4::bigint FROM ${s}.jobs WHERE id = $5 AND webhook_url IS NOT NULL`,
      [createId('evt', now), type, Math.floor(now / 1000), now, jobId],
    );

  const jobByKey = async (client: PgQueryable, input: NewJob) => {
    if (!input.idempotency_key) return undefined;
    const { rows } = await q<JobRow>(
      client,
      `SELECT ${JOB_COLUMNS} FROM ${s}.jobs WHERE coalesce(account_id, '') = $1 AND idempotency_key = $2`,
      [input.account_id ?? '', input.idempotency_key],
    );
    return rows[0];
  };

  return {
    async createJob(input) {
      return transaction(opened, async (client) => {
        if (input.quota) {
          // One create at a time per account while a quota is checked, across every process:
          // concurrent creates must not all count the same jobs and pass together.
          await q(client, 'SELECT pg_advisory_xact_lock($1::int, hashtext($2::text))', [
            QUOTA_LOCK_KEY,
            `${schema}:${input.account_id ?? ''}`,
          ]);
          const existing = await jobByKey(client, input);
          if (existing) return { job: toJob(existing), created: false };
          // `account_id = $1` (not IS NOT DISTINCT FROM) so that the account index is used.
          const owner = input.account_id ? 'account_id = $1' : '(account_id IS NULL AND $1::text IS NULL)';
          const { rows: counted } = await q<QuotaCounts>(
            client,
            `SELECT
               (SELECT count(*) FROM ${s}.jobs WHERE ${owner} AND sandbox = $2
                  AND created_at >= $3)::int AS "jobsToday",
               (SELECT coalesce(sum(total - processed), 0) FROM ${s}.jobs WHERE ${owner}
                  AND sandbox = $2 AND status IN ('queued', 'running'))::int AS "recordsInFlight"`,
            [input.account_id ?? null, input.sandbox ?? false, iso(input.quota.dayStart)],
          );
          checkJobQuota(input.quota, counted[0] as QuotaCounts, {
            total: input.records.length,
            sandbox: input.sandbox ?? false,
            now: input.now.getTime(),
          });
        }
        const chunks: string[][] = [];
        for (let start = 0; start < input.records.length; start += input.chunkSize)
          chunks.push(input.records.slice(start, start + input.chunkSize));
        // A repeated key does nothing here (waiting for a concurrent insert of the same key to
        // commit or roll back), and the job that holds it is read below.
        const inserted = await q<JobRow>(
          client,
          `INSERT INTO ${s}.jobs (id, account_id, sandbox, type, status, total, created_at, webhook_url,
             idempotency_key, request_hash, chunks_left)
           VALUES ($1, $2, $3, $4, 'queued', $5, $6, $7, $8, $9, $10)
           ON CONFLICT ((coalesce(account_id, '')), idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
           RETURNING ${JOB_COLUMNS}`,
          [
            input.id,
            input.account_id ?? null,
            input.sandbox ?? false,
            input.type,
            input.records.length,
            input.now.toISOString(),
            input.webhook_url,
            input.idempotency_key,
            input.request_hash,
            chunks.length,
          ],
        );
        const row = inserted.rows[0];
        if (!row) {
          const job = await jobByKey(client, input);
          if (!job) throw new Error(`the job holding idempotency key ${input.idempotency_key} vanished`);
          return { job: toJob(job), created: false };
        }
        // Every chunk in one statement: one JSON array of the chunks' record arrays.
        await q(
          client,
          `INSERT INTO ${s}.chunks (job_id, chunk, first_index, inputs, state)
           SELECT $1::text, position - 1, (position - 1) * $2::int, inputs, 'pending'
           FROM json_array_elements($3::json) WITH ORDINALITY AS c(inputs, position)`,
          [input.id, input.chunkSize, JSON.stringify(chunks)],
        );
        return { job: toJob(row), created: true };
      });
    },

    async getJob(id, scope) {
      const { rows } = await q<JobRow>(pool, `SELECT ${JOB_COLUMNS} FROM ${s}.jobs WHERE id = $1`, [id]);
      const job = rows[0] && toJob(rows[0]);
      return inScope(job, scope) ? (job as JobRecord) : null;
    },

    async listJobs({ cursor, limit, accountId }) {
      const values: unknown[] = [cursor ?? null, limit + 1];
      if (accountId !== undefined) values.push(accountId);
      const { rows } = await q<JobRow>(
        pool,
        `SELECT ${JOB_COLUMNS} FROM ${s}.jobs WHERE ($1::text IS NULL OR id < $1)
         ${accountId === undefined ? '' : 'AND account_id = $3'} ORDER BY id DESC LIMIT $2`,
        values,
      );
      const has_more = rows.length > limit;
      const data = rows.slice(0, limit).map(toJob);
      return { data, next_cursor: has_more ? (data.at(-1)?.id ?? null) : null, has_more };
    },

    async claimChunk(owner, now, leaseMs, types) {
      const values: unknown[] = [owner, now, now + leaseMs, iso(now)];
      if (types) values.push(types);
      // One statement: lock the first claimable chunk (skipping any another transaction holds),
      // lease it, and start its job. The job row is locked after the chunk, as everywhere.
      const { rows } = await q<{
        job_id: string;
        chunk: number;
        first_index: number;
        inputs: string[];
        attempts: number;
      }>(
        pool,
        `WITH next AS (
           SELECT c.job_id, c.chunk FROM ${s}.chunks c JOIN ${s}.jobs j ON j.id = c.job_id
           WHERE c.state IN ('pending', 'leased') AND j.status IN ('queued', 'running')
             ${types ? 'AND j.type = ANY($5::text[])' : ''}
             AND ((c.state = 'pending' AND c.available_at <= $2) OR (c.state = 'leased' AND c.lease_until < $2))
           ORDER BY c.job_id, c.chunk LIMIT 1
           FOR UPDATE OF c SKIP LOCKED
         ), leased AS (
           UPDATE ${s}.chunks c SET state = 'leased', owner = $1, lease_until = $3, attempts = c.attempts + 1
           FROM next WHERE c.job_id = next.job_id AND c.chunk = next.chunk
           RETURNING c.job_id, c.chunk, c.first_index, c.inputs, c.attempts - 1 AS attempts
         ), started AS (
           UPDATE ${s}.jobs SET status = 'running', started_at = $4
           WHERE id = (SELECT job_id FROM leased) AND status = 'queued'
         )
         SELECT * FROM leased`,
        values,
      );
      const row = rows[0];
      if (!row) return null;
      return {
        jobId: row.job_id,
        chunk: row.chunk,
        owner,
        leaseUntil: now + leaseMs,
        attempts: row.attempts,
        records: row.inputs.map((input, offset) => ({ index: row.first_index + offset, input })),
      };
    },

    async renewLease(lease, now, leaseMs) {
      const { rowCount } = await q(
        pool,
        `UPDATE ${s}.chunks SET lease_until = $1 WHERE job_id = $2 AND chunk = $3 AND state = 'leased' AND owner = $4`,
        [now + leaseMs, lease.jobId, lease.chunk, lease.owner],
      );
      if (rowCount) lease.leaseUntil = now + leaseMs;
      return !!rowCount;
    },

    async commitChunk(lease: ChunkLease, results: readonly RecordResult[], now: number) {
      return transaction(opened, async (client) => {
        // Taking the chunk is the lease check: a lost lease, a chunk already committed (a
        // second delivery of the same work) or a cancelled one matches nothing.
        const held = await q(
          client,
          `UPDATE ${s}.chunks SET state = 'done', owner = NULL
           WHERE job_id = $1 AND chunk = $2 AND state = 'leased' AND owner = $3`,
          [lease.jobId, lease.chunk, lease.owner],
        );
        if (!held.rowCount) throw new Rollback('lost_lease' as const);
        if (results.length > 0) {
          await q(
            client,
            `INSERT INTO ${s}.results (job_id, idx, result)
             SELECT $1::text, idx, result::json FROM unnest($2::int[], $3::text[]) AS r(idx, result)`,
            [
              lease.jobId,
              results.map((result) => result.index),
              results.map((result) => JSON.stringify(result)),
            ],
          );
        }
        // The job row last, and only its non-key columns (FOR NO KEY UPDATE), so the lock is
        // held as briefly as possible and does not block readers or inserts referencing the job.
        const { rows } = await q<{
          counts: Record<string, number>;
          chunks_left: number;
          abandoned: number;
          abandon_reason: string | null;
          total: number;
          webhook_url: string | null;
        }>(
          client,
          `SELECT counts, chunks_left, abandoned, abandon_reason, total, webhook_url FROM ${s}.jobs
           WHERE id = $1 AND status = 'running' FOR NO KEY UPDATE`,
          [lease.jobId],
        );
        const job = rows[0];
        if (!job) throw new Rollback('lost_lease' as const); // cancelled meanwhile
        const tally = tallyChunk(results);
        addCounts(job.counts, tally.counts);
        const left = job.chunks_left - 1;
        const abandoned = job.abandoned + tally.abandoned;
        const reason = job.abandon_reason ?? tally.abandonReason;
        const status = left > 0 ? 'running' : abandoned > 0 ? 'failed' : 'completed';
        const error = status === 'failed' ? abandonedJobError(abandoned, job.total, reason) : null;
        await q(
          client,
          `UPDATE ${s}.jobs SET processed = processed + $2, failed = failed + $3, counts = $4::json,
             chunks_left = $5, abandoned = $6, abandon_reason = $7, status = $8,
             completed_at = CASE WHEN $8 = 'running' THEN NULL ELSE $9::timestamptz END, error = $10::json
           WHERE id = $1`,
          [
            lease.jobId,
            tally.processed,
            tally.failed,
            JSON.stringify(job.counts),
            left,
            abandoned,
            reason,
            status,
            iso(now),
            error ? JSON.stringify(error) : null,
          ],
        );
        // The event is written in the same transaction as the state change: it cannot be lost.
        if (status !== 'running' && job.webhook_url)
          await enqueue(client, lease.jobId, status === 'failed' ? 'batch.failed' : 'batch.completed', now);
        return 'committed' as const;
      });
    },

    async releaseChunk(lease, retryAt, failed = true) {
      await q(
        pool,
        `UPDATE ${s}.chunks SET state = 'pending', owner = NULL, lease_until = 0, available_at = $1,
           attempts = attempts - $2 WHERE job_id = $3 AND chunk = $4 AND state = 'leased' AND owner = $5`,
        [retryAt, failed ? 0 : 1, lease.jobId, lease.chunk, lease.owner],
      );
    },

    async cancelJob(id, now, scope) {
      return transaction(opened, async (client) => {
        const before = await q<JobRow>(client, `SELECT ${JOB_COLUMNS} FROM ${s}.jobs WHERE id = $1`, [id]);
        const job = before.rows[0] && toJob(before.rows[0]);
        if (!inScope(job, scope)) return null;
        if (job?.status !== 'queued' && job?.status !== 'running') return job as JobRecord;
        // The chunks first, in order (as claims and commits lock a chunk before its job), so a
        // commit in flight finishes before the job is cancelled and none starts after.
        await q(client, `SELECT 1 FROM ${s}.chunks WHERE job_id = $1 ORDER BY chunk FOR UPDATE`, [id]);
        const cancelled = await q<JobRow>(
          client,
          `UPDATE ${s}.jobs SET status = 'cancelled', completed_at = $2
           WHERE id = $1 AND status IN ('queued', 'running') RETURNING ${JOB_COLUMNS}`,
          [id, iso(now)],
        );
        const row = cancelled.rows[0];
        if (!row) {
          // The last commit finished the job while we waited for its chunk.
          const after = await q<JobRow>(client, `SELECT ${JOB_COLUMNS} FROM ${s}.jobs WHERE id = $1`, [id]);
          return toJob(after.rows[0] as JobRow);
        }
        await q(
          client,
          `UPDATE ${s}.chunks SET state = 'cancelled', owner = NULL WHERE job_id = $1 AND state <> 'done'`,
          [id],
        );
        await enqueue(client, id, 'batch.cancelled', now);
        return toJob(row);
      });
    },

    async results(jobId, { cursor, limit }) {
      // Keyset paging on the primary key: a page costs the same at record 49,000 as at 0.
      const { rows } = await q<{ result: RecordResult }>(
        pool,
        `SELECT result FROM ${s}.results WHERE job_id = $1 AND idx >= $2 ORDER BY idx LIMIT $3`,
        [jobId, cursor ? Number(cursor) : 0, limit + 1],
      );
      const has_more = rows.length > limit;
      const data = rows.slice(0, limit).map((row) => row.result);
      return { data, next_cursor: has_more ? String((data.at(-1)?.index ?? 0) + 1) : null, has_more };
    },

    async claimDelivery(owner, now, leaseMs) {
      const { rows } = await q<OutboxRow>(
        pool,
        `WITH next AS (
           SELECT event_id FROM ${s}.outbox
           WHERE state = 'pending' AND next_attempt_at <= $2 AND (owner IS NULL OR lease_until < $2)
           ORDER BY next_attempt_at LIMIT 1 FOR UPDATE SKIP LOCKED
         )
         UPDATE ${s}.outbox o SET owner = $1, lease_until = $3 FROM next, ${s}.jobs j
         WHERE o.event_id = next.event_id AND j.id = o.job_id
         RETURNING o.*, j.account_id`,
        [owner, now, now + leaseMs],
      );
      return rows[0] ? toDelivery(rows[0], owner) : null;
    },

    async claimEvent(eventId, owner, now, leaseMs, scope) {
      return transaction(opened, async (client) => {
        const { rows } = await q<OutboxRow>(
          client,
          `SELECT o.*, j.account_id FROM ${s}.outbox o JOIN ${s}.jobs j ON j.id = o.job_id
           WHERE o.event_id = $1 FOR UPDATE OF o`,
          [eventId],
        );
        const row = rows[0];
        if (!row || !inScope(row, scope)) return null;
        if (row.owner !== null && Number(row.lease_until) >= now) return 'busy' as const;
        await q(client, `UPDATE ${s}.outbox SET owner = $1, lease_until = $2 WHERE event_id = $3`, [
          owner,
          now + leaseMs,
          eventId,
        ]);
        return { ...toDelivery(row, owner), resendOf: row.state };
      });
    },

    async beginAttempt(delivery, begun) {
      // One statement: counted and logged as in progress only while the lease holds (a finished
      // event only for a resend); an earlier attempt left in progress (its deliverer died) is
      // closed as interrupted.
      const { rowCount } = await q(
        pool,
        `WITH moved AS (
           UPDATE ${s}.outbox SET attempt_count = attempt_count + 1,
             first_attempt_at = coalesce(first_attempt_at, $3::bigint)
           WHERE event_id = $1 AND owner = $2 AND (state = 'pending' OR $4::boolean)
           RETURNING event_id, attempt_count
         ), interrupted AS (
           UPDATE ${s}.delivery_attempts a SET in_progress = false, error = $6::text
           FROM moved WHERE a.event_id = moved.event_id AND a.in_progress
         )
         INSERT INTO ${s}.delivery_attempts (event_id, seq, at, status, latency_ms, error, trigger, in_progress)
         SELECT event_id, attempt_count, $3::bigint, NULL, 0, $7::text, $5::text, true FROM moved`,
        [
          delivery.eventId,
          delivery.owner,
          begun.at,
          delivery.resendOf !== undefined,
          begun.trigger ?? null,
          ATTEMPT_INTERRUPTED,
          ATTEMPT_IN_PROGRESS,
        ],
      );
      return rowCount === 1;
    },

    async recordAttempt(delivery, attempt, outcome) {
      // One statement: the event moves on and its attempt in progress is completed (or, when
      // none was begun, a new one logged) only while the lease holds.
      await q(
        pool,
        `WITH begun AS (
           SELECT a.seq FROM ${s}.delivery_attempts a JOIN ${s}.outbox o ON o.event_id = a.event_id
           WHERE a.event_id = $1 AND a.seq = o.attempt_count AND a.in_progress
         ), moved AS (
           UPDATE ${s}.outbox SET attempt_count = attempt_count + (CASE WHEN EXISTS (SELECT 1 FROM begun) THEN 0 ELSE 1 END),
             first_attempt_at = coalesce(first_attempt_at, $3::bigint), owner = NULL, state = $4, next_attempt_at = $5
           WHERE event_id = $1 AND owner = $2 AND (state = 'pending' OR $6::boolean)
           RETURNING event_id, attempt_count
         ), completed AS (
           UPDATE ${s}.delivery_attempts a SET at = $3::bigint, status = $7::int, latency_ms = $8::float8,
             error = $9::text, trigger = $10::text, in_progress = false
           FROM moved WHERE a.event_id = moved.event_id AND a.seq = (SELECT seq FROM begun)
           RETURNING a.seq
         )
         INSERT INTO ${s}.delivery_attempts (event_id, seq, at, status, latency_ms, error, trigger)
         SELECT event_id, attempt_count, $3::bigint, $7::int, $8::float8, $9::text, $10::text FROM moved
         WHERE NOT EXISTS (SELECT 1 FROM begun)`,
        [
          delivery.eventId,
          delivery.owner,
          attempt.at,
          outcome.state,
          outcome.state === 'pending' ? outcome.nextAttemptAt : 0,
          delivery.resendOf !== undefined,
          attempt.status,
          attempt.latencyMs,
          attempt.error,
          attempt.trigger ?? null,
        ],
      );
    },

    async deliveries(jobId) {
      const { rows } = await q<EventRow>(
        pool,
        `SELECT o.*, ${attemptsOf(s)} AS attempts FROM ${s}.outbox o WHERE o.job_id = $1
         ORDER BY o.created, o.event_id`,
        [jobId],
      );
      return rows.map(toView);
    },

    async getEvent(eventId, scope) {
      const { rows } = await q<EventRow>(
        pool,
        `SELECT o.*, j.account_id, ${attemptsOf(s)} AS attempts
         FROM ${s}.outbox o JOIN ${s}.jobs j ON j.id = o.job_id WHERE o.event_id = $1`,
        [eventId],
      );
      return rows[0] && inScope(rows[0], scope) ? toView(rows[0]) : null;
    },

    async deleteFinishedJobs({ finishedBefore, sandbox, limit }) {
      return transaction(opened, async (client) => {
        // Jobs another sweeper is deleting right now are skipped, not waited for.
        const { rows } = await q<{ id: string }>(
          client,
          `SELECT j.id FROM ${s}.jobs j
           WHERE j.sandbox = $1 AND j.status IN ('completed', 'failed', 'cancelled') AND j.completed_at < $2
             AND NOT EXISTS (SELECT 1 FROM ${s}.outbox o WHERE o.job_id = j.id AND o.state = 'pending')
           ORDER BY j.completed_at LIMIT $3 FOR UPDATE OF j SKIP LOCKED`,
          [sandbox, iso(finishedBefore), limit],
        );
        const ids = rows.map((row) => row.id);
        if (ids.length === 0) return 0;
        // Results have no foreign key (see the schema); chunks, events and attempts cascade.
        await q(client, `DELETE FROM ${s}.results WHERE job_id = ANY($1::text[])`, [ids]);
        await q(client, `DELETE FROM ${s}.jobs WHERE id = ANY($1::text[])`, [ids]);
        return ids.length;
      });
    },

    async close() {
      if (opened.owned) await opened.pool.end();
    },
  } satisfies Store;
}
