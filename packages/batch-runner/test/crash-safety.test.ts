import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { skipWithout, startWebhookReceiver, type WebhookReceiver } from '@svc/testkit';
import { verifyPayload } from '@svc/webhooks';
import { describe, expect, it } from 'vitest';
import type { Store } from '../src/store.js';
import { createSqliteStore } from '../src/stores/sqlite.js';
import { type JobProgress, openProgressReader } from './job-progress.js';

const child = fileURLToPath(new URL('./crash-child.mjs', import.meta.url));
const built = existsSync(fileURLToPath(new URL('../dist/index.js', import.meta.url)));
const secret = 'whsec_crash';

function startWorker(db: string, hookUrl: string): { process: ChildProcess; exited: Promise<number | null> } {
  const process = spawn(globalThis.process.execPath, [child, db, hookUrl, secret], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return { process, exited: new Promise((resolve) => process.on('exit', (code) => resolve(code))) };
}

const TOTAL = 50_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What one kill left in the file: the committed state before the worker started and after it died. */
interface KillOutcome {
  before: number;
  after: JobProgress | null;
}

/**
 * A kill interrupted the job when the killed worker had committed records of it and left it
 * running with some but not all records committed.
 */
const interrupted = ({ before, after }: KillOutcome) =>
  after?.status === 'running' && after.processed > before && after.processed < after.total;

/**
 * Starts the worker `times` times and SIGKILLs it while the job runs: each kill waits until the
 * file shows this worker committing (the job exists and records are being processed), then a
 * random 0-300 ms more, so it lands at any point of a chunk's work or commit. Returns what each
 * kill left, read from the file after the worker is dead, for the test to count.
 */
async function killWhileRunning(db: string, hookUrl: string, times: number): Promise<KillOutcome[]> {
  const progress = openProgressReader(db);
  const outcomes: KillOutcome[] = [];
  try {
    for (let kill = 0; kill < times; kill++) {
      const before = progress.read()?.processed ?? 0;
      const worker = startWorker(db, hookUrl);
      let exitCode: number | null | undefined;
      void worker.exited.then((code) => {
        exitCode = code;
      });
      const deadline = Date.now() + 60_000;
      try {
        while ((progress.read()?.processed ?? 0) <= before) {
          if (exitCode !== undefined)
            throw new Error(`the worker exited (code ${exitCode}) before committing`);
          if (Date.now() > deadline) throw new Error('the worker committed nothing within 60 s');
          await sleep(10);
        }
        await sleep(Math.floor(Math.random() * 300));
      } finally {
        worker.process.kill('SIGKILL');
      }
      await worker.exited;
      outcomes.push({ before, after: progress.read() });
    }
  } finally {
    progress.close();
  }
  return outcomes;
}

/** Runs the worker until it exits on its own (job done, event delivered); returns the job id. */
async function runToEnd(db: string, hookUrl: string): Promise<string> {
  const worker = startWorker(db, hookUrl);
  let output = '';
  worker.process.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  expect(await worker.exited).toBe(0);
  return output.trim();
}

/** Every record exactly once, counters equal to the stored results, the job completed. */
async function expectExactlyOnce(store: Store, jobId: string): Promise<void> {
  const job = await store.getJob(jobId);
  expect(job).toMatchObject({ status: 'completed', total: TOTAL, processed: TOTAL, error: null });
  const seen = new Set<number>();
  let cursor: string | null = null;
  let failed = 0;
  const counts: Record<string, number> = {};
  do {
    const page = await store.results(jobId, { cursor, limit: 5000 });
    for (const result of page.data) {
      expect(seen.has(result.index)).toBe(false);
      seen.add(result.index);
      if (!result.ok) failed++;
      else for (const key of [result.countKey ?? []].flat()) counts[key] = (counts[key] ?? 0) + 1;
    }
    cursor = page.next_cursor;
  } while (cursor);
  expect(seen.size).toBe(TOTAL);
  expect(job?.failed).toBe(failed);
  expect(job?.counts).toEqual(counts);
}

/** Delivered at least once, always the same event id, each delivery correctly signed. */
function expectOneEvent(receiver: WebhookReceiver, jobId: string): string {
  expect(receiver.deliveries.length).toBeGreaterThanOrEqual(1);
  const events = receiver.deliveries.map((delivery) => {
    const header = String(delivery.headers['x-service-signature']);
    const timestamp = Number(/t=(\d+)/.exec(header)?.[1]);
    return verifyPayload(delivery.body, header, secret, { now: timestamp });
  });
  expect(new Set(events.map((event) => event.id)).size).toBe(1);
  expect(events[0]).toMatchObject({
    type: 'batch.completed',
    data: { object: { id: jobId, status: 'completed' } },
  });
  return events[0]?.id as string;
}

// The child imports the built package, as a user's process would; `pnpm test` builds first. A
// bare `vitest run` before any build says so instead of passing quietly (and CI fails).
const unbuilt = skipWithout({
  name: 'a build of @svc/batch-runner (dist/)',
  available: built,
  howToGet: 'npx -y pnpm@10 build',
  what: 'the SIGKILL crash-safety tests',
});
describe.skipIf(unbuilt)('crash safety: a 50,000-record job on SQLite survives SIGKILL', () => {
  it('ends with every record exactly once, counters equal to the results, and the webhook delivered', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'crash-')), 'jobs.db');
    const receiver = await startWebhookReceiver();
    try {
      const kills = await killWhileRunning(db, `${receiver.url}/hook`, 6);
      expect(kills.filter(interrupted).length, JSON.stringify(kills)).toBeGreaterThanOrEqual(5);
      const jobId = await runToEnd(db, `${receiver.url}/hook`);
      const store = await createSqliteStore({ path: db });
      await expectExactlyOnce(store, jobId);
      expectOneEvent(receiver, jobId);
      await store.close();
    } finally {
      await receiver.close();
    }
  }, 180_000);

  it('delivers the event after a receiver that was down for the first part of the run comes back', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'crash-down-')), 'jobs.db');
    // Reserve a port, then leave nothing listening on it: every POST is refused until it is back.
    const placeholder = await startWebhookReceiver();
    const port = Number(new URL(placeholder.url).port);
    const hookUrl = `${placeholder.url}/hook`;
    await placeholder.close();

    const kills = await killWhileRunning(db, hookUrl, 5);
    expect(kills.filter(interrupted).length, JSON.stringify(kills)).toBe(5);
    // Let the job finish and its first delivery fail against the dead port, then kill the
    // worker once more while the event waits for its retry.
    const worker = startWorker(db, hookUrl);
    const store = await createSqliteStore({ path: db });
    let jobId = '';
    await expect
      .poll(
        async () => {
          const [job] = (await store.listJobs({ limit: 1 })).data;
          jobId = job?.id ?? '';
          const [event] = job ? await store.deliveries(job.id) : [];
          // An attempt is logged before its request goes out: wait for its outcome.
          return event?.attempts.filter((attempt) => !attempt.inProgress).length ?? 0;
        },
        { timeout: 120_000, interval: 100 },
      )
      .toBeGreaterThanOrEqual(1);
    worker.process.kill('SIGKILL');
    await worker.exited;
    const [refused] = await store.deliveries(jobId);
    expect(refused).toMatchObject({ state: 'pending', attempts: [{ status: null }] });
    expect(refused?.attempts[0]?.error).toMatch(/ECONNREFUSED|refused/i);

    const receiver = await startWebhookReceiver({ port });
    try {
      expect(await runToEnd(db, hookUrl)).toBe(jobId);
      await expectExactlyOnce(store, jobId);
      const eventId = expectOneEvent(receiver, jobId);
      const [delivered] = await store.deliveries(jobId);
      expect(delivered).toMatchObject({ eventId, state: 'delivered' });
      expect(delivered?.attempts.at(-1)).toMatchObject({ status: 200, error: null });
      // The retry waited for the schedule's ~5 s step after the refused first attempt.
      const [first, last] = [delivered?.attempts[0]?.at ?? 0, delivered?.attempts.at(-1)?.at ?? 0];
      expect(last - first).toBeGreaterThanOrEqual(3000);
    } finally {
      await store.close();
      await receiver.close();
    }
  }, 180_000);
});
