import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type Measurement, printTable } from '../lib/measure.js';
import { SCALE_RECORDS } from './job.js';
import { dropSchema, scratchName } from './scratch.js';
import type { StoreChildReport } from './store-child.js';

/** Runs store-child.ts in a fresh process and returns its report. */
async function runInChild(args: string[]): Promise<StoreChildReport> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      '--conditions=source',
      '--import',
      'tsx',
      fileURLToPath(new URL('./store-child.ts', import.meta.url)),
      '--scale-store-child',
      ...args,
    ],
    { maxBuffer: 1 << 20 },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1) as string) as StoreChildReport;
}

function row(name: string, report: StoreChildReport): Measurement {
  return {
    name,
    operations: SCALE_RECORDS,
    seconds: report.seconds,
    rssMb: report.peakRssMb,
    note: `peak RSS of its process ${report.peakRssMb.toFixed(0)} MB (${report.idleRssMb.toFixed(0)} MB before the job)`,
  };
}

/**
 * Table 1: one job with a trivial processor, one runner (4 chunks of 250 at a time) in a process
 * of its own, on the SQLite store (WAL file, the embedded default) and on the Postgres store.
 */
export async function runStoreComparison(databaseUrl: string | undefined): Promise<Measurement[]> {
  const rows: Measurement[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'bench-scale-'));
  try {
    rows.push(row('SQLite store (WAL, file)', await runInChild(['sqlite', dir])));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (databaseUrl) {
    const schema = scratchName();
    try {
      rows.push(row('Postgres store', await runInChild(['postgres', databaseUrl, schema])));
    } finally {
      await dropSchema(databaseUrl, schema);
    }
  }
  printTable(
    `Scale 1: ${SCALE_RECORDS.toLocaleString('en')} records, trivial processor, one process: Postgres vs SQLite (records/s)`,
    rows,
    'SQLite store (WAL, file)',
  );
  if (!databaseUrl)
    console.log('\nThe Postgres row needs DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test).');
  else {
    const [sqlite, postgres] = rows;
    if (sqlite && postgres)
      console.log(
        `\nPostgres takes ${(postgres.seconds / sqlite.seconds).toFixed(2)}× SQLite's wall time; peak RSS ${postgres.rssMb.toFixed(0)} MB vs ${sqlite.rssMb.toFixed(0)} MB.`,
      );
  }
  return rows;
}
