// One HTTP server under load, in a process of its own: the load generator (autocannon, in the
// parent) then never shares the server's event loop, and the RSS read here is the server's alone
// and not the harness's (which holds the other suites' data). The parent forks this file with
// `--server-child`, sends one ServerChildConfig and talks to it over IPC (see server-process.ts).
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDns2Resolver, createVerifier, type Verifier } from '@svc/email-verifier';
import { createDefaultGeoResolver, type GeoResolver } from '@svc/geo-resolver';
import {
  CONTROL_PLANE_DB_FILE,
  type ControlPlaneStore,
  createAccount,
  createMemoryControlPlaneStore,
  createServer,
  createServerSecrets,
  createSqliteControlPlaneStore,
  createWriteBehindUsageStore,
} from '@svc/server';
import Fastify, { type FastifyInstance } from 'fastify';

export const CHILD_FLAG = '--server-child';

/** A plan no request of the throughput runs can exhaust (rate, burst and allowance). */
export const UNLIMITED_PLAN = 'bench_unlimited';

/** What the parent asks the child to serve. */
export interface ServerChildConfig {
  /** `ours`: createServer with every plugin; `bare`: Fastify with the two routes and nothing else. */
  variant: 'ours' | 'bare';
  /**
   * Control-plane store of `ours`: SQLite as `svc serve` uses, SQLite with usage written behind
   * (`createWriteBehindUsageStore`), or the memory store.
   */
  controlPlane: 'sqlite' | 'sqlite-write-behind' | 'memory';
  /** `host:port` of the fake DNS server the verifier asks. */
  dns: string;
  /** pino level of `ours` (its log goes to the child's stdout, which the parent sends to /dev/null). */
  logLevel: 'info' | 'warn' | 'silent';
  /** X-Forwarded-For from these peers names the client (the mix gives each kind of caller its own address). */
  trustedProxies: string[];
}

/** The keys the child made (only `ours` has any). */
export interface ServerChildKeys {
  /** Live key of an account on UNLIMITED_PLAN. */
  unlimitedLive: string;
  /** Test key of the same account (the sandbox verifier). */
  unlimitedTest: string;
  /** Live key of an account on the Free plan (1 request/s, burst 10, 1,000 units a month). */
  freeLive: string;
}

/** Memory figures of the child, MB. */
export interface ServerChildMemory {
  rssMb: number;
  /** Peak RSS since the last `track`, sampled every 10 ms. */
  peakRssMb: number;
  /** V8 heap in use: after a full collection when one was asked for (`collect`), else as it is. */
  heapUsedMb: number;
  /**
   * CPU seconds (user + system) the child used since the last `track`: unlike requests/s, hardly
   * changed by other processes competing for the cores.
   */
  cpuSeconds: number;
}

export type ChildRequest =
  | { config: ServerChildConfig }
  | { id: number; op: 'track' | 'close' }
  | { id: number; op: 'memory'; collect: boolean };
export type ChildResponse =
  | { ready: { url: string; keys: ServerChildKeys | null } }
  | { failed: string }
  | { id: number; memory?: ServerChildMemory };

/** The server variants share these: the verifier `svc serve` builds for a `dns` setting, and the bundled geo data. */
async function libraries(config: ServerChildConfig): Promise<{ verifier: Verifier; geo: GeoResolver }> {
  const verifier = createVerifier({ dns: createDns2Resolver({ server: config.dns }) });
  // The default data with its default cache dir: compiled and verified once per machine, reused here.
  const geo = await createDefaultGeoResolver();
  return { verifier, geo };
}

/** A Fastify route per endpoint making the same library call as ours, and nothing else. */
function bareServer({ verifier, geo }: { verifier: Verifier; geo: GeoResolver }): FastifyInstance {
  const app = Fastify({ logger: false });
  app.get<{ Params: { ip: string } }>('/v2/geo/:ip', async (request) => geo.lookup(request.params.ip));
  app.post<{ Body: { email: string; options?: Record<string, boolean> } }>(
    '/v2/verify/email',
    async (request) => verifier.verify(request.body.email, request.body.options),
  );
  return app;
}

async function oursServer(
  config: ServerChildConfig,
  services: { verifier: Verifier; geo: GeoResolver },
): Promise<{ app: FastifyInstance; keys: ServerChildKeys }> {
  const sqlite = () =>
    createSqliteControlPlaneStore({
      path: join(mkdtempSync(join(tmpdir(), 'bench-server-')), CONTROL_PLANE_DB_FILE),
    });
  const controlPlane: ControlPlaneStore =
    config.controlPlane === 'sqlite'
      ? await sqlite()
      : config.controlPlane === 'sqlite-write-behind'
        ? createWriteBehindUsageStore(await sqlite())
        : createMemoryControlPlaneStore();
  const secrets = createServerSecrets(randomBytes(32));
  const app = await createServer({
    ...services,
    controlPlane,
    secrets,
    options: {
      logLevel: config.logLevel,
      trustedProxies: config.trustedProxies,
      plans: {
        [UNLIMITED_PLAN]: {
          name: 'Benchmark',
          rate_per_second: 1_000_000,
          burst: 1_000_000,
          monthly_allowance: null,
        },
      },
    },
  });
  const deps = { controlPlane, secrets, now: Date.now };
  const unlimited = await createAccount(deps, { name: 'bench unlimited', planId: UNLIMITED_PLAN });
  const free = await createAccount(deps, { name: 'bench free', planId: 'free' });
  return {
    app,
    keys: {
      unlimitedLive: unlimited.liveKey.secret,
      unlimitedTest: unlimited.testKey.secret,
      freeLive: free.liveKey.secret,
    },
  };
}

function memory(peak: number, cpuAtTrack: NodeJS.CpuUsage, collect: boolean): ServerChildMemory {
  const cpu = process.cpuUsage(cpuAtTrack);
  // --expose-gc is passed by the parent: the heap figure is then what survives, not garbage.
  if (collect) (globalThis as { gc?: () => void }).gc?.();
  const usage = process.memoryUsage();
  return {
    rssMb: usage.rss / 1e6,
    peakRssMb: Math.max(peak, usage.rss) / 1e6,
    heapUsedMb: usage.heapUsed / 1e6,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
  };
}

async function main(): Promise<void> {
  const reply = (response: ChildResponse) => process.send?.(response);
  let app: FastifyInstance | undefined;
  let peak = 0;
  let cpuAtTrack = process.cpuUsage();
  let sampler: NodeJS.Timeout | undefined;
  process.on('message', async (request: ChildRequest) => {
    if ('config' in request) {
      try {
        const services = await libraries(request.config);
        const built =
          request.config.variant === 'ours'
            ? await oursServer(request.config, services)
            : { app: bareServer(services), keys: null };
        app = built.app;
        await app.listen({ port: 0, host: '127.0.0.1' });
        const { port } = app.server.address() as AddressInfo;
        reply({ ready: { url: `http://127.0.0.1:${port}`, keys: built.keys } });
      } catch (error) {
        reply({ failed: (error as Error).stack ?? String(error) });
        process.exit(1);
      }
      return;
    }
    if (request.op === 'track') {
      // Peak RSS of the next run: sampled here, where the memory is.
      clearInterval(sampler);
      peak = process.memoryUsage.rss();
      cpuAtTrack = process.cpuUsage();
      sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage.rss());
      }, 10);
      reply({ id: request.id });
    } else if (request.op === 'memory') {
      reply({ id: request.id, memory: memory(peak, cpuAtTrack, request.collect) });
    } else {
      clearInterval(sampler);
      await app?.close();
      reply({ id: request.id });
      // A normal exit (--cpu-prof writes its profile then); the resolvers' sockets would keep it alive.
      process.disconnect();
      process.exit(0);
    }
  });
}

if (process.argv.includes(CHILD_FLAG)) await main();
