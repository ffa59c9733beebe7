// Table 3 (opt-in: SERVER_BENCH_INSTRUCTIONS=1): instructions per request, counted by valgrind's
// callgrind in each server child after a warm-up. Unlike req/s and CPU time, the count hardly
// moves with other load on the machine (repeat runs of one build agreed within about 2%), so it
// tells a small change of ours from the machine's noise where table 1 cannot.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDnsServer } from '@svc/testkit';
import autocannon from 'autocannon';
import { benchZones } from './inputs.js';
import type { ServerChildConfig } from './server-child.js';
import { startServerProcess } from './server-process.js';
import { type Endpoint, endpoints } from './throughput.js';

/** Requests before counting (the JIT settles) and requests counted. */
const WARMUP_REQUESTS = Number(process.env.SERVER_BENCH_INSTRUCTIONS_WARMUP ?? 30_000);
const COUNTED_REQUESTS = Number(process.env.SERVER_BENCH_INSTRUCTIONS_REQUESTS ?? 5_000);

/** One endpoint and variant. */
export interface InstructionRow {
  endpoint: string;
  variant: string;
  /** All the process's threads: JS, the JIT compiler's, the garbage collector's helpers. */
  instructionsPerRequest: number;
  /** The JS thread alone (the event loop, where requests wait for one another). */
  jsThreadInstructionsPerRequest: number;
}

const VARIANTS: { name: string; config: Omit<ServerChildConfig, 'dns'> }[] = [
  {
    name: 'bare Fastify route',
    config: { variant: 'bare', controlPlane: 'memory', logLevel: 'silent', trustedProxies: [] },
  },
  {
    name: 'ours as svc serve (usage written behind, request log on)',
    config: { variant: 'ours', controlPlane: 'sqlite-write-behind', logLevel: 'info', trustedProxies: [] },
  },
];

/** Whether valgrind can run here; if not, the table is skipped with a message. */
function valgrindVersion(): string | null {
  try {
    return execFileSync('valgrind', ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}

/** Sends exactly `amount` requests of `endpoint` (4 connections). */
async function send(url: string, key: string, endpoint: Endpoint, amount: number): Promise<void> {
  let index = 0;
  const result = await autocannon({
    url,
    connections: 4,
    amount,
    headers: { 'x-api-key': key },
    requests: [
      {
        setupRequest: (request) => {
          const own = endpoint.request(index++);
          return { ...request, ...own, headers: { ...request.headers, ...own.headers } };
        },
      },
    ],
  });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${endpoint.name}: ${result.non2xx} non-2xx answers and ${result.errors} errors`);
  }
}

/** Runs table 3, or returns null (saying why) when valgrind is missing. */
export async function runInstructions(): Promise<InstructionRow[] | null> {
  if (!valgrindVersion()) {
    console.log('\nSkipped the instruction counts (SERVER_BENCH_INSTRUCTIONS=1): valgrind is not installed.');
    return null;
  }
  const dns = await startDnsServer({ zones: benchZones() });
  const rows: InstructionRow[] = [];
  try {
    for (const endpoint of endpoints()) {
      for (const variant of VARIANTS) {
        const dir = mkdtempSync(join(tmpdir(), 'bench-callgrind-'));
        // Counting starts switched off: only the requests after the warm-up are counted. The JIT
        // writes code at run time, hence the self-modifying-code check.
        const server = await startServerProcess(
          { ...variant.config, dns: dns.address },
          {
            program: 'valgrind',
            args: [
              '--tool=callgrind',
              '--quiet',
              '--instr-atstart=no',
              '--smc-check=all-non-file',
              // One file per thread: the JS thread's count apart from the compiler threads', which
              // under valgrind fall behind and still compile during the count, by an amount that
              // differs from process to process by up to 20,000 instructions a request.
              '--separate-threads=yes',
              `--callgrind-out-file=${join(dir, 'callgrind.out')}`,
            ],
          },
        );
        try {
          const key = server.keys?.unlimitedLive ?? 'sk_live_unused';
          await send(server.url, key, endpoint, WARMUP_REQUESTS);
          const control = (...args: string[]) =>
            execFileSync('callgrind_control', [...args, String(server.pid)], { stdio: 'ignore' });
          control('--zero');
          control('--instr=on');
          await send(server.url, key, endpoint, COUNTED_REQUESTS);
          control('--instr=off');
          control('--dump');
          // Files `callgrind.out.<part>-<thread>`; thread 01 is the main (JS) thread.
          let total = 0;
          let jsThread = 0;
          for (const file of readdirSync(dir)) {
            const match = readFileSync(join(dir, file), 'utf8').match(/^totals: (\d+)/m);
            if (!match) continue;
            total += Number(match[1]);
            if (file.endsWith('-01')) jsThread = Math.max(jsThread, Number(match[1]));
          }
          if (jsThread === 0)
            throw new Error(`callgrind wrote no totals for ${endpoint.name}, ${variant.name}`);
          rows.push({
            endpoint: endpoint.name,
            variant: variant.name,
            instructionsPerRequest: total / COUNTED_REQUESTS,
            jsThreadInstructionsPerRequest: jsThread / COUNTED_REQUESTS,
          });
        } finally {
          await server.close();
          rmSync(dir, { recursive: true, force: true });
        }
      }
    }
    return rows;
  } finally {
    await dns.close();
  }
}

/** Prints table 3 with each row's ratio to the bare route of its endpoint. */
export function printInstructions(rows: InstructionRow[]): void {
  console.log(
    `\n## Server: instructions per request (callgrind, ${COUNTED_REQUESTS.toLocaleString('en')} requests after ${WARMUP_REQUESTS.toLocaleString('en')} of warm-up, 4 connections)\n`,
  );
  console.log(
    '| endpoint | variant | JS thread instructions/request | bare/ours | all threads instructions/request | bare/ours |',
  );
  console.log('|---|---|---:|---:|---:|---:|');
  const count = (value: number) => Math.round(value).toLocaleString('en');
  for (const row of rows) {
    const bare = rows.find((other) => other.endpoint === row.endpoint && other.variant === VARIANTS[0]?.name);
    const jsRatio = bare
      ? bare.jsThreadInstructionsPerRequest / row.jsThreadInstructionsPerRequest
      : Number.NaN;
    const ratio = bare ? bare.instructionsPerRequest / row.instructionsPerRequest : Number.NaN;
    console.log(
      `| ${row.endpoint} | ${row.variant} | ${count(row.jsThreadInstructionsPerRequest)} | ${jsRatio.toFixed(2)}× | ${count(row.instructionsPerRequest)} | ${ratio.toFixed(2)}× |`,
    );
  }
  console.log(
    "\nUser-space instructions of the server process while it answered the counted requests, on its JS thread and in all its threads; the kernel's part (the socket writes) is not counted. The JS thread's count is the steadier one (repeat runs of one build agreed within 0.2% on verify, and came out at either about 149,000 or about 157,000 on geo): under valgrind the JIT compiler threads fall behind and still compile during the count, 80,000 to 95,000 instructions per request, an amount that differs from process to process. Work done once per millisecond (an id's time part) counts in nearly every request under valgrind, where a request takes milliseconds.",
  );
}
