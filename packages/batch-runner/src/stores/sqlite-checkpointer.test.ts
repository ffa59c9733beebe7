import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, expect, it, vi } from 'vitest';
import { type CheckpointCounts, driverModulePath, walCheckpoints } from './sqlite-checkpointer.js';

const dir = mkdtempSync(join(tmpdir(), 'batch-checkpoints-'));
let opened: Database.Database[] = [];
afterEach(() => {
  for (const db of opened) if (db.open) db.close();
  opened = [];
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
/** A WAL database with one table, and a write of about `kib` KiB in one transaction. */
function walDatabase() {
  const path = join(dir, `wal-${files++}.db`);
  const db = new Database(path);
  opened.push(db);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
  const write = db.transaction((kib: number) => {
    for (let i = 0; i < kib; i++) insert.run('x'.repeat(1000));
  });
  const size = (suffix = '') => statSync(`${path}${suffix}`, { throwIfNoEntry: false })?.size ?? 0;
  return { path, db, write, size };
}

it('finds the module file of the driver class, and none for a class that is no module', () => {
  expect(driverModulePath(Database)).toMatch(/better-sqlite3/);
  expect(driverModulePath(class NotADriver {})).toBeNull();
});

it("checkpoints in the worker, not in the main connection's commits, and the WAL then starts afresh", async () => {
  const { path, db, write, size } = walDatabase();
  const counts: CheckpointCounts = { inline: 0, worker: 0 };
  const checkpoints = walCheckpoints(
    db,
    path,
    driverModulePath(Database),
    { spacingMs: 0, truncateBytes: 64 * 1024 },
    counts,
  );
  expect(checkpoints.mode).toBe('worker');
  expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
  // 6 MiB, past SQLite's automatic checkpoint of 1,000 pages: the commit copies nothing.
  write(6 * 1024);
  expect(size()).toBeLessThan(64 * 1024);
  checkpoints.wrote();
  // Writes wait (asynchronously) while the worker checkpoints: looked at on every turn of the
  // event loop, the checkpoint is seen in flight (it takes far longer than one turn).
  let wait = checkpoints.pending();
  while (!wait && counts.worker === 0) {
    await new Promise((resolve) => setImmediate(resolve));
    wait = checkpoints.pending();
  }
  expect(wait).toBeInstanceOf(Promise);
  await wait;
  expect(counts).toEqual({ inline: 0, worker: 1 });
  expect(checkpoints.pending()).toBeUndefined();
  // The worker copied the WAL into the database file; the next write restarts the WAL,
  // cut back to journal_size_limit.
  expect(size()).toBeGreaterThan(6 * 1024 * 1024);
  expect(size('-wal')).toBeGreaterThan(6 * 1024 * 1024);
  write(1);
  expect(size('-wal')).toBeLessThanOrEqual(64 * 1024);
  await checkpoints.close();
  db.close();
  // The worker closed first: the main connection, the last one, removed the WAL.
  expect(size('-wal')).toBe(0);
  expect(new Database(path, { readonly: true }).prepare('SELECT count(*) AS n FROM t').get()).toEqual({
    n: 6 * 1024 + 1,
  });
});

it('keeps the WAL under its hard limit when the worker does not checkpoint', async () => {
  const { path, db, write, size } = walDatabase();
  const counts: CheckpointCounts = { inline: 0, worker: 0 };
  // A worker that would wait an hour between checkpoints: the main connection's limit holds.
  const checkpoints = walCheckpoints(
    db,
    path,
    driverModulePath(Database),
    { spacingMs: 3_600_000, hardLimitBytes: 1024 * 1024, truncateBytes: 256 * 1024 },
    counts,
  );
  let largest = 0;
  for (let i = 0; i < 40; i++) {
    await checkpoints.pending();
    write(256);
    checkpoints.wrote();
    largest = Math.max(largest, size('-wal'));
  }
  // 10 MiB written; the WAL never held much more than 1 MiB and one transaction.
  expect(counts.worker).toBe(0);
  expect(counts.inline).toBeGreaterThanOrEqual(5);
  expect(largest).toBeLessThan(1024 * 1024 + 512 * 1024);
  await checkpoints.close();
});

it("falls back to SQLite's automatic checkpoints without a worker, or when the worker fails", async () => {
  const memory = new Database(':memory:');
  opened.push(memory);
  expect(walCheckpoints(memory, ':memory:', driverModulePath(Database)).mode).toBe('inline');
  const noDriver = walDatabase();
  expect(walCheckpoints(noDriver.db, noDriver.path, null).mode).toBe('inline');
  expect(noDriver.db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);

  const broken = join(dir, 'broken-driver.cjs');
  writeFileSync(broken, "throw new Error('no native build');\n");
  const failing = walDatabase();
  const checkpoints = walCheckpoints(failing.db, failing.path, broken);
  expect(failing.db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
  await vi.waitFor(() => expect(checkpoints.mode).toBe('inline'));
  expect(failing.db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
  // Writes never wait for a worker that is gone.
  failing.write(1);
  checkpoints.wrote();
  expect(checkpoints.pending()).toBeUndefined();
  await checkpoints.close();
});

it('gives up on a worker whose checkpoint does not answer in time: writes go on, SQLite checkpoints', async () => {
  // A driver whose checkpoint hangs (2 s here; a stuck fsync, say).
  const stuck = join(dir, 'stuck-driver.cjs');
  writeFileSync(
    stuck,
    'module.exports = class { pragma() { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2000); return [{}]; } close() {} };\n',
  );
  const { path, db, write } = walDatabase();
  const checkpoints = walCheckpoints(db, path, stuck, { spacingMs: 0, timeoutMs: 100 });
  write(1);
  checkpoints.wrote();
  let wait = checkpoints.pending();
  while (!wait) {
    await new Promise((resolve) => setImmediate(resolve));
    wait = checkpoints.pending();
  }
  await wait;
  expect(checkpoints.mode).toBe('inline');
  expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
  checkpoints.wrote();
  expect(checkpoints.pending()).toBeUndefined();
  await checkpoints.close();
});

it('a store its owner never closes does not keep the process alive (its worker is unreferenced)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-checkpointer-exit-'));
  try {
    const script = join(dir, 'open-and-leave.mts');
    const store = new URL('./sqlite.ts', import.meta.url).pathname;
    writeFileSync(
      script,
      `import { createSqliteStore } from ${JSON.stringify(store)};
const store = await createSqliteStore({ path: ${JSON.stringify(join(dir, 'jobs.db'))} });
await new Promise((resolve) => setTimeout(resolve, 200)); // the worker is up and has said so
console.log('left open', typeof store.close);
`,
    );
    const { execFile } = await import('node:child_process');
    // Before: the worker's port, referenced again by its 'message' listener, kept the process alive.
    // (tsx is the e2e project's, loaded from its directory.)
    const output = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        ['--conditions=source', '--import', 'tsx', script],
        {
          cwd: new URL('../../../../test', import.meta.url).pathname,
          timeout: 60_000,
          killSignal: 'SIGKILL',
        },
        (error, stdout) => (error ? reject(error) : resolve(stdout)),
      ),
    );
    expect(output).toContain('left open');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 90_000);
