import { createId } from '@svc/core';
import type { Delivery, EventView, JobRecord, JobScope, NewJob, RecordResult, Store } from '../store.js';
import { beginInLog, completeInLog } from './attempt-log.js';
import { checkJobQuota } from './quota.js';
import { abandonedJobError, addCounts, tallyChunk } from './tally.js';

interface Chunk {
  start: number;
  end: number;
  state: 'pending' | 'leased' | 'done' | 'cancelled';
  owner: string | null;
  leaseUntil: number;
  availableAt: number;
  attempts: number;
}

/** An event as the outbox holds it: what `events()` shows, with the schedule and the lease. */
interface OutboxEntry extends Omit<EventView, 'nextAttemptAt'> {
  nextAttemptAt: number;
  firstAttemptAt: number | null;
  owner: string | null;
  leaseUntil: number;
}

interface Entry {
  job: JobRecord;
  /** Records the runner gave up on, and the first one's reason. */
  abandoned: number;
  abandonReason: string | null;
  inputs: readonly string[];
  chunks: Chunk[];
  results: Array<RecordResult | undefined>;
}

const inScope = (job: JobRecord, scope?: JobScope) =>
  scope?.accountId === undefined || job.account_id === scope.accountId;

/** A Store in process memory: the default for embedding and tests. Nothing survives a restart. */
export function createMemoryStore(): Store {
  const entries = new Map<string, Entry>();
  // Idempotency keys are unique per owning account: the key is `<account>\0<key>`.
  const byKey = new Map<string, string>();
  const keyOf = (accountId: string | null | undefined, key: string) => `${accountId ?? ''}\0${key}`;
  const outbox: OutboxEntry[] = [];
  const clone = (job: JobRecord): JobRecord => structuredClone(job);
  const scoped = (id: string, scope?: JobScope) => {
    const entry = entries.get(id);
    return entry && inScope(entry.job, scope) ? entry : undefined;
  };
  const accountOf = (jobId: string) => entries.get(jobId)?.job.account_id ?? null;
  const view = (event: OutboxEntry): EventView => ({
    eventId: event.eventId,
    jobId: event.jobId,
    type: event.type,
    url: event.url,
    created: event.created,
    state: event.state,
    nextAttemptAt: event.state === 'pending' ? event.nextAttemptAt : null,
    attempts: structuredClone(event.attempts),
  });
  const lease = (event: OutboxEntry, owner: string, now: number, leaseMs: number): Delivery => {
    event.owner = owner;
    event.leaseUntil = now + leaseMs;
    const { eventId, jobId, type, url, created, firstAttemptAt } = event;
    return {
      eventId,
      jobId,
      type,
      url,
      created,
      firstAttemptAt,
      attempts: event.attempts.length,
      owner,
      accountId: accountOf(jobId),
    };
  };
  // The event while `delivery`'s lease holds (a finished event only for a resend), else undefined.
  const held = (delivery: Delivery) => {
    const event = outbox.find((candidate) => candidate.eventId === delivery.eventId);
    if (!event || event.owner !== delivery.owner) return undefined;
    return event.state === 'pending' || delivery.resendOf !== undefined ? event : undefined;
  };
  const enqueue = (job: JobRecord, type: Delivery['type'], now: number) => {
    if (!job.webhook_url) return;
    outbox.push({
      eventId: createId('evt', now),
      jobId: job.id,
      type,
      url: job.webhook_url,
      created: Math.floor(now / 1000),
      state: 'pending',
      nextAttemptAt: now,
      firstAttemptAt: null,
      owner: null,
      leaseUntil: 0,
      attempts: [],
    });
  };

  return {
    async createJob(input: NewJob) {
      const existing = input.idempotency_key
        ? byKey.get(keyOf(input.account_id, input.idempotency_key))
        : undefined;
      if (existing) return { job: clone((entries.get(existing) as Entry).job), created: false };
      if (input.quota) {
        const counts = { jobsToday: 0, recordsInFlight: 0 };
        const dayStart = new Date(input.quota.dayStart).toISOString();
        for (const { job } of entries.values()) {
          if (job.account_id !== (input.account_id ?? null) || job.sandbox !== (input.sandbox ?? false))
            continue;
          if (job.created_at >= dayStart) counts.jobsToday++;
          if (job.status === 'queued' || job.status === 'running')
            counts.recordsInFlight += job.total - job.processed;
        }
        checkJobQuota(input.quota, counts, {
          total: input.records.length,
          sandbox: input.sandbox ?? false,
          now: input.now.getTime(),
        });
      }
      const chunks: Chunk[] = [];
      for (let start = 0; start < input.records.length; start += input.chunkSize) {
        const end = Math.min(input.records.length, start + input.chunkSize);
        chunks.push({
          start,
          end,
          state: 'pending',
          owner: null,
          leaseUntil: 0,
          availableAt: 0,
          attempts: 0,
        });
      }
      const job: JobRecord = {
        id: input.id,
        account_id: input.account_id ?? null,
        sandbox: input.sandbox ?? false,
        type: input.type,
        status: 'queued',
        total: input.records.length,
        processed: 0,
        failed: 0,
        counts: {},
        created_at: input.now.toISOString(),
        started_at: null,
        completed_at: null,
        webhook_url: input.webhook_url,
        idempotency_key: input.idempotency_key,
        request_hash: input.request_hash,
        error: null,
      };
      entries.set(job.id, {
        job,
        abandoned: 0,
        abandonReason: null,
        inputs: [...input.records],
        chunks,
        results: new Array(job.total),
      });
      if (input.idempotency_key) byKey.set(keyOf(input.account_id, input.idempotency_key), job.id);
      return { job: clone(job), created: true };
    },

    async getJob(id, scope) {
      const entry = scoped(id, scope);
      return entry ? clone(entry.job) : null;
    },

    async listJobs({ cursor, limit, accountId }) {
      const ids = [...entries.values()]
        .filter((entry) => inScope(entry.job, { accountId }))
        .map((entry) => entry.job.id)
        .sort()
        .reverse();
      const from = cursor ? ids.findIndex((id) => id < cursor) : 0;
      const slice = from < 0 ? [] : ids.slice(from, from + limit);
      const has_more = from >= 0 && from + limit < ids.length;
      return {
        data: slice.map((id) => clone((entries.get(id) as Entry).job)),
        next_cursor: has_more ? (slice.at(-1) ?? null) : null,
        has_more,
      };
    },

    async claimChunk(owner, now, leaseMs, types) {
      for (const entry of entries.values()) {
        if (entry.job.status !== 'queued' && entry.job.status !== 'running') continue;
        if (types && !types.includes(entry.job.type)) continue;
        const index = entry.chunks.findIndex(
          (chunk) =>
            (chunk.state === 'pending' && chunk.availableAt <= now) ||
            (chunk.state === 'leased' && chunk.leaseUntil < now),
        );
        if (index < 0) continue;
        const chunk = entry.chunks[index] as Chunk;
        const attempts = chunk.attempts;
        Object.assign(chunk, { state: 'leased', owner, leaseUntil: now + leaseMs, attempts: attempts + 1 });
        if (entry.job.status === 'queued') {
          entry.job.status = 'running';
          entry.job.started_at = new Date(now).toISOString();
        }
        return {
          jobId: entry.job.id,
          chunk: index,
          owner,
          leaseUntil: chunk.leaseUntil,
          attempts,
          records: entry.inputs
            .slice(chunk.start, chunk.end)
            .map((input, offset) => ({ index: chunk.start + offset, input })),
        };
      }
      return null;
    },

    async renewLease(lease, now, leaseMs) {
      const chunk = entries.get(lease.jobId)?.chunks[lease.chunk];
      if (chunk?.state !== 'leased' || chunk.owner !== lease.owner) return false;
      chunk.leaseUntil = now + leaseMs;
      lease.leaseUntil = chunk.leaseUntil;
      return true;
    },

    async commitChunk(lease, results, now) {
      const entry = entries.get(lease.jobId);
      const chunk = entry?.chunks[lease.chunk];
      if (
        !entry ||
        !chunk ||
        chunk.state !== 'leased' ||
        chunk.owner !== lease.owner ||
        entry.job.status !== 'running'
      ) {
        return 'lost_lease';
      }
      const { job } = entry;
      for (const result of results) entry.results[result.index] = structuredClone(result);
      const tally = tallyChunk(results);
      job.processed += tally.processed;
      job.failed += tally.failed;
      addCounts(job.counts, tally.counts);
      entry.abandoned += tally.abandoned;
      entry.abandonReason ??= tally.abandonReason;
      chunk.state = 'done';
      chunk.owner = null;
      if (entry.chunks.every((candidate) => candidate.state === 'done')) {
        job.status = entry.abandoned > 0 ? 'failed' : 'completed';
        job.completed_at = new Date(now).toISOString();
        if (entry.abandoned > 0)
          job.error = abandonedJobError(entry.abandoned, job.total, entry.abandonReason);
        enqueue(job, job.status === 'failed' ? 'batch.failed' : 'batch.completed', now);
      }
      return 'committed';
    },

    async releaseChunk(lease, retryAt) {
      const chunk = entries.get(lease.jobId)?.chunks[lease.chunk];
      if (chunk?.state !== 'leased' || chunk.owner !== lease.owner) return;
      Object.assign(chunk, { state: 'pending', owner: null, leaseUntil: 0, availableAt: retryAt });
    },

    async cancelJob(id, now, scope) {
      const entry = scoped(id, scope);
      if (!entry) return null;
      if (entry.job.status === 'queued' || entry.job.status === 'running') {
        entry.job.status = 'cancelled';
        entry.job.completed_at = new Date(now).toISOString();
        for (const chunk of entry.chunks) if (chunk.state !== 'done') chunk.state = 'cancelled';
        enqueue(entry.job, 'batch.cancelled', now);
      }
      return clone(entry.job);
    },

    async results(jobId, { cursor, limit }) {
      const entry = entries.get(jobId);
      const data: RecordResult[] = [];
      let index = cursor ? Number(cursor) : 0;
      for (; entry && index < entry.results.length && data.length < limit; index++) {
        const result = entry.results[index];
        if (result) data.push(structuredClone(result));
      }
      const has_more = !!entry && entry.results.slice(index).some(Boolean);
      return { data, next_cursor: has_more ? String(index) : null, has_more };
    },

    async claimDelivery(owner, now, leaseMs) {
      const due = outbox.find(
        (event) =>
          event.state === 'pending' &&
          event.nextAttemptAt <= now &&
          (event.owner === null || event.leaseUntil < now),
      );
      return due ? lease(due, owner, now, leaseMs) : null;
    },

    async claimEvent(eventId, owner, now, leaseMs, scope) {
      const event = outbox.find((candidate) => candidate.eventId === eventId);
      if (!event || !scoped(event.jobId, scope)) return null;
      if (event.owner !== null && event.leaseUntil >= now) return 'busy';
      return { ...lease(event, owner, now, leaseMs), resendOf: event.state };
    },

    async beginAttempt(delivery, begun) {
      const event = held(delivery);
      if (!event) return false;
      event.attempts = beginInLog(event.attempts, begun);
      event.firstAttemptAt ??= begun.at;
      return true;
    },

    async recordAttempt(delivery, attempt, outcome) {
      const event = held(delivery);
      if (!event) return;
      event.attempts = completeInLog(event.attempts, attempt);
      event.firstAttemptAt ??= attempt.at;
      event.owner = null;
      event.state = outcome.state;
      if (outcome.state === 'pending') event.nextAttemptAt = outcome.nextAttemptAt;
    },

    async deliveries(jobId) {
      return outbox.filter((event) => event.jobId === jobId).map(view);
    },

    async getEvent(eventId, scope) {
      const event = outbox.find((candidate) => candidate.eventId === eventId);
      return event && scoped(event.jobId, scope) ? view(event) : null;
    },

    async deleteFinishedJobs({ finishedBefore, sandbox, limit }) {
      const before = new Date(finishedBefore).toISOString();
      const pending = new Set(
        outbox.filter((event) => event.state === 'pending').map((event) => event.jobId),
      );
      let deleted = 0;
      for (const [id, { job }] of entries) {
        if (deleted >= limit) break;
        if (job.sandbox !== sandbox || job.completed_at === null || job.completed_at >= before) continue;
        if (job.status === 'queued' || job.status === 'running' || pending.has(id)) continue;
        entries.delete(id);
        if (job.idempotency_key) byKey.delete(keyOf(job.account_id, job.idempotency_key));
        deleted++;
      }
      for (let index = outbox.length - 1; index >= 0; index--)
        if (!entries.has((outbox[index] as OutboxEntry).jobId)) outbox.splice(index, 1);
      return deleted;
    },

    async close() {},
  } satisfies Store;
}
