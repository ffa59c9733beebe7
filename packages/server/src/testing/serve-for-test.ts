import { join } from 'node:path';
import { type RunningServer, type ServeOptions, serve } from '../serve.js';
import { GEO_FIXTURES } from './test-server.js';

/** A `serve()` a test started, with what it wrote to stdout and stderr so far. */
export interface ServedForTest {
  server: RunningServer;
  out(): string;
  err(): string;
}

/**
 * `svc serve` as a test starts it, in `dir`: an ephemeral loopback port, the data dir `<dir>/data`,
 * silent logs, MaxMind's City test data, no environment, no signal handlers, and stdout and stderr
 * collected. `options` replace these settings key by key; `extra` sets the other arguments of serve().
 */
export async function serveForTest(
  dir: string,
  options: Record<string, unknown> = {},
  extra: Omit<ServeOptions, 'options' | 'stdout' | 'stderr'> = {},
): Promise<ServedForTest> {
  let out = '';
  let err = '';
  const server = await serve({
    options: {
      port: 0,
      dataDir: join(dir, 'data'),
      logLevel: 'silent',
      geo: { databases: [`${GEO_FIXTURES}GeoIP2-City-Test.mmdb`] },
      ...options,
    },
    env: {},
    cwd: dir,
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text) },
    handleSignals: false,
    ...extra,
  });
  return { server, out: () => out, err: () => err };
}

/** The live key `svc serve` prints on stderr at its first start (undefined when it printed none). */
export const printedLiveKey = (stderr: string) => /live key: +(sk_live_\w+)/.exec(stderr)?.[1];

/** The test key `svc serve` prints on stderr at its first start (undefined when it printed none). */
export const printedTestKey = (stderr: string) =>
  /test key \(sandbox, never billed\): +(sk_test_\w+)/.exec(stderr)?.[1];
