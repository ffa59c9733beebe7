// Table 1: GET /v2/geo/{ip} and POST /v2/verify/email (no probe, DNS from the testkit's fake
// server, warm cache) through our server (createServer: auth, limits, usage, request ids, the
// request log) against a bare Fastify route making the same library call. Each server runs in a
// child process (server-child.ts) and autocannon drives it from this one.
import { startDnsServer } from '@svc/testkit';
import autocannon from 'autocannon';
import { benchEmails, benchZones, publicAddresses } from './inputs.js';
import type { ServerChildConfig } from './server-child.js';
import { type ServerProcess, startServerProcess } from './server-process.js';

/** Seconds of load per measured run, and alternating rounds (the best round of each variant counts). */
const SECONDS = Number(process.env.SERVER_BENCH_SECONDS ?? 8);
const ROUNDS = Number(process.env.SERVER_BENCH_ROUNDS ?? 2);
const WARMUP_SECONDS = 3;
const CONNECTIONS = Number(process.env.SERVER_BENCH_CONNECTIONS ?? 10);
/**
 * Server processes per variant. Two processes of one build, measured in alternating rounds, can
 * differ by up to 15% in CPU per request for their whole lifetime on this kind of machine (seen
 * with three processes of ours: 38.5, 40.5 and 44.5 µs a geo call, each steady over 12 rounds),
 * so one process per variant makes a ratio partly luck. With more, a variant's row is its median
 * process (by its best round) and the note under the table lists every process.
 */
const PROCESSES = Number(process.env.SERVER_BENCH_PROCESSES ?? 1);
if (!Number.isInteger(PROCESSES) || PROCESSES < 1) {
  throw new Error(
    `SERVER_BENCH_PROCESSES must be a whole number ≥ 1, got ${process.env.SERVER_BENCH_PROCESSES}`,
  );
}

/** One measured run. */
export interface ThroughputRow {
  endpoint: string;
  variant: string;
  requests: number;
  seconds: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  /** The server process's peak RSS during the run. */
  peakRssMb: number;
  /** The server process's CPU time per answered request, µs (robust to other load on the machine). */
  cpuUsPerRequest: number;
  non2xx: number;
  errors: number;
}

interface Variant {
  /** For SERVER_BENCH_VARIANTS. */
  id: string;
  name: string;
  config: Omit<ServerChildConfig, 'dns'>;
  /** Another checkout whose server child runs it (the `baseline` variant). */
  checkout?: string;
}

/**
 * `SERVER_BENCH_BASELINE=/path/to/other/checkout` (installed and built, e.g. a worktree at the
 * commit before a change): adds the variant `baseline`, `svc serve`'s setup run by that
 * checkout's code, measured in the same rounds as this checkout's `serve`, so a before/after
 * pair shares the machine's load instead of coming from two runs.
 */
const BASELINE = process.env.SERVER_BENCH_BASELINE;

const ALL_VARIANTS: Variant[] = [
  {
    id: 'bare',
    name: 'bare Fastify route',
    config: { variant: 'bare', controlPlane: 'memory', logLevel: 'silent', trustedProxies: [] },
  },
  {
    id: 'sqlite',
    name: 'ours, SQLite, one usage write per call (usageFlushMs 0)',
    config: { variant: 'ours', controlPlane: 'sqlite', logLevel: 'info', trustedProxies: [] },
  },
  {
    id: 'serve',
    name: 'ours, SQLite, usage written behind (as svc serve, 250 ms)',
    config: { variant: 'ours', controlPlane: 'sqlite-write-behind', logLevel: 'info', trustedProxies: [] },
  },
  {
    // The comparison names auth, limits, usage and request ids; this row shows what the
    // request log (pino, one JSON line per request) adds on top of them.
    id: 'serve-log-off',
    name: 'ours, usage written behind, request log off (level warn)',
    config: { variant: 'ours', controlPlane: 'sqlite-write-behind', logLevel: 'warn', trustedProxies: [] },
  },
  {
    id: 'memory',
    name: 'ours, memory control plane',
    config: { variant: 'ours', controlPlane: 'memory', logLevel: 'info', trustedProxies: [] },
  },
  ...(BASELINE
    ? [
        {
          id: 'baseline',
          name: `as svc serve, the code of ${BASELINE}`,
          config: {
            variant: 'ours',
            controlPlane: 'sqlite-write-behind',
            logLevel: 'info',
            trustedProxies: [],
          },
          checkout: BASELINE,
        } satisfies Variant,
      ]
    : []),
];

/**
 * The variants run: all, or those `SERVER_BENCH_VARIANTS` names by id (e.g. `bare,serve`; the
 * bare route always runs, as the ratios' base): a quicker run, or the bare route and one variant
 * alone on the machine.
 */
const VARIANTS: Variant[] = (() => {
  const wanted = process.env.SERVER_BENCH_VARIANTS?.split(',').map((id) => id.trim());
  if (!wanted) return ALL_VARIANTS;
  const unknown = wanted.filter((id) => !ALL_VARIANTS.some((variant) => variant.id === id));
  if (unknown.length > 0) {
    throw new Error(
      `SERVER_BENCH_VARIANTS: unknown ${unknown.join(', ')}; the variants are ${ALL_VARIANTS.map((variant) => variant.id).join(', ')}`,
    );
  }
  return ALL_VARIANTS.filter(
    (variant) => variant.id === 'bare' || variant.id === 'baseline' || wanted.includes(variant.id),
  );
})();

export interface Endpoint {
  name: string;
  /** The n-th request of a connection. */
  request(index: number): autocannon.Request;
}

export function endpoints(): Endpoint[] {
  const ips = publicAddresses(1_000);
  const bodies = benchEmails(1_000).map((email) => JSON.stringify({ email }));
  return [
    {
      name: 'GET /v2/geo/{ip}',
      request: (index) => ({ method: 'GET', path: `/v2/geo/${ips[index % ips.length]}` }),
    },
    {
      name: 'POST /v2/verify/email',
      request: (index) => ({
        method: 'POST',
        path: '/v2/verify/email',
        headers: { 'content-type': 'application/json' },
        body: bodies[index % bodies.length] as string,
      }),
    },
  ];
}

/** Latency percentiles of a run, ms. */
interface Latency {
  p50: number;
  p99: number;
  mean: number;
}

/** The `q` quantile of sorted values. */
const quantile = (sorted: Float64Array, q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

/**
 * Drives `server` with `endpoint`'s requests for `seconds`. Latency is timed here, from the
 * moment a connection's next request is built (autocannon writes it right after) to its response,
 * because autocannon's own histogram keeps whole milliseconds and a loopback call takes less.
 */
export async function load(
  server: ServerProcess,
  endpoint: Endpoint,
  seconds: number,
): Promise<{ result: autocannon.Result; latency: Latency }> {
  let index = 0;
  let samples = new Float64Array(1 << 16);
  let count = 0;
  const result = await autocannon({
    url: server.url,
    connections: CONNECTIONS,
    duration: seconds,
    // Both servers get the key; the bare one ignores it.
    headers: { 'x-api-key': server.keys?.unlimitedLive ?? 'sk_live_unused' },
    requests: [
      {
        setupRequest: (request, context) => {
          (context as { sentAt?: number }).sentAt = performance.now();
          const own = endpoint.request(index++);
          return { ...request, ...own, headers: { ...request.headers, ...own.headers } };
        },
        onResponse: (_status, _body, context) => {
          const sentAt = (context as { sentAt?: number }).sentAt;
          if (sentAt === undefined) return;
          if (count === samples.length) {
            const grown = new Float64Array(samples.length * 2);
            grown.set(samples);
            samples = grown;
          }
          samples[count++] = performance.now() - sentAt;
        },
      },
    ],
  });
  const sorted = samples.subarray(0, count).sort();
  const mean = sorted.reduce((sum, value) => sum + value, 0) / Math.max(1, count);
  return { result, latency: { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), mean } };
}

/** Rows of table 1, and for each endpoint and variant the best req/s of each of its processes. */
export interface ThroughputResult {
  rows: ThroughputRow[];
  perProcess: Array<{ endpoint: string; variant: string; rates: number[] }>;
}

/** The row of the median process (by its best round); the lower middle one for an even count. */
function medianRow(rows: ThroughputRow[]): ThroughputRow {
  const sorted = [...rows].sort((a, b) => rate(a) - rate(b));
  return sorted[Math.floor((sorted.length - 1) / 2)] as ThroughputRow;
}

/** Runs table 1 and returns its rows (per variant, the median process's best round). */
export async function runThroughput(): Promise<ThroughputResult> {
  const dns = await startDnsServer({ zones: benchZones() });
  const servers: Array<{ variant: Variant; server: ServerProcess }> = [];
  try {
    for (let copy = 0; copy < PROCESSES; copy++) {
      for (const variant of VARIANTS) {
        servers.push({
          variant,
          server: await startServerProcess(
            { ...variant.config, dns: dns.address },
            undefined,
            variant.checkout,
          ),
        });
      }
    }
    const rows: ThroughputRow[] = [];
    const perProcess: ThroughputResult['perProcess'] = [];
    for (const endpoint of endpoints()) {
      // Warm-up: JIT, the geo cache, the verifier's DNS cache (every domain asked once here).
      for (const { server } of servers) await load(server, endpoint, WARMUP_SECONDS);
      const queriesAfterWarmup = dns.queries.length;
      const best = new Map<ServerProcess, ThroughputRow>();
      for (let round = 0; round < ROUNDS; round++) {
        // Processes alternate, so a burst of other work on the machine does not fall on one only,
        // and each round starts one further along, so none always follows the same one.
        for (let step = 0; step < servers.length; step++) {
          const { variant, server } = servers[(step + round) % servers.length] as (typeof servers)[0];
          await server.track();
          const { result, latency } = await load(server, endpoint, SECONDS);
          // No forced GC here: it would slow the variant's next round (see ServerProcess.memory).
          const memory = await server.memory({ collect: false });
          const row: ThroughputRow = {
            endpoint: endpoint.name,
            variant: variant.name,
            requests: result.requests.total,
            seconds: result.duration,
            p50Ms: latency.p50,
            p99Ms: latency.p99,
            meanMs: latency.mean,
            peakRssMb: memory.peakRssMb,
            cpuUsPerRequest: (memory.cpuSeconds * 1e6) / Math.max(1, result.requests.total),
            non2xx: result.non2xx,
            errors: result.errors,
          };
          const previous = best.get(server);
          if (!previous || rate(row) > rate(previous)) best.set(server, row);
        }
      }
      for (const variant of VARIANTS) {
        const own = servers
          .filter((entry) => entry.variant === variant)
          .map(({ server }) => best.get(server) as ThroughputRow);
        rows.push(medianRow(own));
        perProcess.push({ endpoint: endpoint.name, variant: variant.name, rates: own.map(rate) });
      }
      const cold = dns.queries.length - queriesAfterWarmup;
      if (cold > 0) console.log(`\nnote: ${endpoint.name} asked DNS ${cold} times after the warm-up`);
    }
    return { rows, perProcess };
  } finally {
    for (const { server } of servers) await server.close();
    await dns.close();
  }
}

export const rate = (row: Pick<ThroughputRow, 'requests' | 'seconds'>) => row.requests / row.seconds;

/** Prints table 1 with each row's ratio to the bare route of its endpoint. */
export function printThroughput({ rows, perProcess }: ThroughputResult): void {
  const processes = PROCESSES === 1 ? '' : `, the median of ${PROCESSES} server processes`;
  console.log(
    `\n## Server: requests/s through createServer vs a bare Fastify route (${CONNECTIONS} connections, best of ${ROUNDS} × ${SECONDS} s${processes})\n`,
  );
  console.log(
    '| endpoint | variant | requests | req/s | ratio vs bare | p50 ms | p99 ms | mean ms | server CPU µs/req | bare/ours CPU | server RSS MB | non-2xx |',
  );
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of rows) {
    const bare = rows.find((other) => other.endpoint === row.endpoint && other.variant === VARIANTS[0]?.name);
    const ratio = bare ? rate(row) / rate(bare) : Number.NaN;
    const cpuRatio = bare ? bare.cpuUsPerRequest / row.cpuUsPerRequest : Number.NaN;
    console.log(
      `| ${row.endpoint} | ${row.variant} | ${row.requests.toLocaleString('en')} | ${Math.round(rate(row)).toLocaleString('en')} | ${ratio.toFixed(2)}× | ${row.p50Ms.toFixed(2)} | ${row.p99Ms.toFixed(2)} | ${row.meanMs.toFixed(2)} | ${row.cpuUsPerRequest.toFixed(0)} | ${cpuRatio.toFixed(2)}× | ${row.peakRssMb.toFixed(0)} | ${row.non2xx + row.errors} |`,
    );
  }
  console.log(
    PROCESSES === 1
      ? '\nOne server process per variant (SERVER_BENCH_PROCESSES): processes of one build can differ by up to 15%, so a single run’s ratio is partly luck.'
      : `\nBest req/s of each process: ${perProcess.map(({ endpoint, variant, rates }) => `${endpoint}, ${variant}: ${rates.map((value) => Math.round(value).toLocaleString('en')).join(' / ')}`).join('; ')}.`,
  );
  console.log(
    '\nGoal: ours ≥ 0.7× the bare route. Ours = every plugin of createServer (auth by a live key on an unlimited plan, limits, usage recorded per call, X-Request-Id, the request log at info to /dev/null through its buffer; the built packages, as svc serve runs them); RSS = the server process’s peak during the run; CPU = the server process’s user + system time per answered request (bare/ours CPU is the throughput ratio a server-bound run would show, and moves little when other processes share the cores).',
  );
}
