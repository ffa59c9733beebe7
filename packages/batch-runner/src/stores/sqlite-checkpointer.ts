import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * How the SQLite store keeps its WAL checkpoints off the event loop. A checkpoint copies the
 * WAL's pages into the database file and syncs both (with `synchronous = NORMAL`, two fsyncs):
 * 10–15 ms for SQLite's automatic one of 1,000 pages, 3–5 ms even for 100 pages, all of it on
 * the thread that commits when SQLite runs it inside a commit. Here the main connection never
 * checkpoints (`wal_autocheckpoint = 0`); after a write, at most every `spacingMs`, a worker
 * thread with a connection of its own runs SQLite's PASSIVE checkpoint, and the store's writes
 * wait for it (asynchronously: `pending()`; reads and the event loop go on).
 *
 * What bounds the WAL: SQLite starts it afresh at the first write after a checkpoint that copied
 * all of it, which holding the writes during the worker's checkpoint makes sure of, and
 * `journal_size_limit` then truncates the file to `truncateBytes`. Should that fail (another
 * process writing throughout), the main connection runs a PASSIVE checkpoint itself whenever
 * the file has passed `hardLimitBytes`. Where no worker can be started (no driver module to load
 * in it, an in-memory database), or it fails or does not answer within `timeoutMs`, SQLite's own
 * automatic checkpoints (every 1,000 pages, inside a commit) are switched back on for good.
 */
export interface WalCheckpointLimits {
  /** Least time from the end of one checkpoint to the start of the next. @default 200 */
  spacingMs?: number;
  /** How long writes wait for the worker's checkpoint at most; then it counts as failed. @default 5000 */
  timeoutMs?: number;
  /** `journal_size_limit`: the size the WAL file is cut back to when it restarts. @default 16 MiB */
  truncateBytes?: number;
  /** WAL file size past which the main connection checkpoints itself. @default 64 MiB */
  hardLimitBytes?: number;
}

/** What the store calls: before and after each write, and before closing its connection. */
export interface WalCheckpoints {
  /** While the worker checkpoints: what a write must await first (undefined: go ahead). */
  pending(): Promise<void> | undefined;
  /** A write transaction committed. */
  wrote(): void;
  /** How checkpoints run now (`inline`: SQLite's automatic ones, in the committing thread). */
  readonly mode: 'worker' | 'inline';
  /** Stops the worker and closes its connection; call before closing the main connection. */
  close(): Promise<void>;
}

/** Checkpoints completed by the worker and run by the main connection (the hard limit), for tests. */
export interface CheckpointCounts {
  inline: number;
  worker: number;
}

// The worker's code, CommonJS (eval): no file to find in a build or under a test runner's
// transform. It loads the driver module the main thread uses, by path.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driverPath);
const db = new Database(workerData.path, { fileMustExist: true });
parentPort.postMessage('ready');
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
  } else parentPort.postMessage({ seq: message, ...db.pragma('wal_checkpoint(PASSIVE)')[0] });
});
`;

/**
 * The file of the CommonJS module whose exports are `driver` (better-sqlite3's `Database`), from
 * Node's module cache: a worker must load that very copy, since two copies of SQLite in one
 * process each keep their own POSIX locks on the file, and one copy's close drops the other's.
 */
export function driverModulePath(driver: unknown): string | null {
  const cache = createRequire(import.meta.url).cache;
  for (const module of Object.values(cache)) if (module && module.exports === driver) return module.filename;
  return null;
}

/**
 * Sets up checkpoints for the WAL database `db` opened at `path`, the worker loading the driver
 * module at `driverPath` (see driverModulePath; null: no worker); `counts`, if given, is
 * incremented as checkpoints complete.
 */
export function walCheckpoints(
  db: BetterSqlite3.Database,
  path: string,
  driverPath: string | null,
  limits: WalCheckpointLimits = {},
  counts?: CheckpointCounts,
): WalCheckpoints {
  const spacingMs = limits.spacingMs ?? 200;
  const timeoutMs = limits.timeoutMs ?? 5000;
  const hardLimitBytes = limits.hardLimitBytes ?? 64 * 1024 * 1024;
  if (!driverPath || path === ':memory:' || path === '') {
    db.pragma('wal_autocheckpoint = 1000');
    return { mode: 'inline', pending: () => undefined, wrote() {}, async close() {} };
  }
  db.pragma('wal_autocheckpoint = 0');
  db.pragma(`journal_size_limit = ${limits.truncateBytes ?? 16 * 1024 * 1024}`);
  const walPath = `${path}-wal`;
  let closed = false;
  let lastEnded = Number.NEGATIVE_INFINITY;
  let seq = 0;
  let timer: NodeJS.Timeout | undefined;
  let ready = false;
  let worker: Worker | undefined;
  // While the worker checkpoints: the promise writes await, and what ends it.
  let inFlight: { done: Promise<void>; end: () => void; timeout: NodeJS.Timeout } | undefined;
  const finish = () => {
    if (!inFlight) return;
    clearTimeout(inFlight.timeout);
    inFlight.end();
    inFlight = undefined;
    // Idle again: an open store must not keep the process alive.
    worker?.unref();
    lastEnded = performance.now();
  };
  // A checkpoint is due (after a write); it starts once the worker is ready.
  let wanted = false;
  const checkpoint = () => {
    timer = undefined;
    if (closed || state.mode !== 'worker' || inFlight || !worker || !ready) return;
    wanted = false;
    let end = () => {};
    const done = new Promise<void>((resolve) => (end = resolve));
    const timeout = setTimeout(fail, timeoutMs);
    timeout.unref();
    inFlight = { done, end, timeout };
    // Writes wait for this checkpoint: the process lives until it answers (finish unreferences it).
    worker.ref();
    worker.postMessage(++seq);
  };
  const fail = () => {
    finish();
    if (closed || state.mode === 'inline') return;
    state.mode = 'inline';
    db.pragma('wal_autocheckpoint = 1000');
    void worker?.terminate();
  };
  const state: WalCheckpoints & { mode: 'worker' | 'inline' } = {
    mode: 'worker',
    pending: () => inFlight?.done,
    wrote() {
      if (closed || state.mode !== 'worker') return;
      let size = 0;
      try {
        size = statSync(walPath).size;
      } catch {}
      if (size > hardLimitBytes) {
        db.pragma('wal_checkpoint(PASSIVE)');
        if (counts) counts.inline++;
      }
      if (wanted || inFlight) return;
      wanted = true;
      timer = setTimeout(checkpoint, Math.max(0, lastEnded + spacingMs - performance.now()));
      timer.unref();
    },
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      await inFlight?.done;
      const running = worker;
      worker = undefined;
      if (!running || state.mode !== 'worker') return;
      // One still starting has no connection to close yet.
      if (!ready) {
        await running.terminate();
        return;
      }
      const exited = new Promise((resolve) => running.once('exit', resolve));
      // The close waits for the worker's exit: the process must live until it has.
      running.ref();
      running.postMessage('close');
      await exited;
    },
  };
  // Started now, not at the first write: starting a thread is not free for the event loop either.
  worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driverPath, path } });
  worker.on('message', (reply: 'ready' | { seq: number }) => {
    if (reply === 'ready') {
      ready = true;
      if (wanted && !timer) checkpoint();
    }
    // A reply after its timeout must not end a later checkpoint.
    else if (reply.seq === seq) {
      if (counts) counts.worker++;
      finish();
    }
  });
  worker.on('error', fail);
  worker.on('exit', fail);
  // After the listeners: a 'message' listener refers the worker's port again (Node 20), and a
  // store its owner never closes must not keep the process alive (the batch-runner README's example).
  worker.unref();
  return state;
}
