// GET /v2/health latency while clients send the bodies of issue 24 item 2 (arrays of hundreds of
// thousands of wrong-typed items, an object with 60,000 unknown keys), three at a time, with a test
// key (never billed): `svc serve` as users start it, a probe asking /v2/health every 10 ms, first
// quiet, then under the bodies, then quiet again. Run once, small:
//   cd benchmarks && node --conditions=source --import tsx run.ts hostile-bodies
import { loadavg } from 'node:os';
import { describe, probeHealth, startServe } from '../batch/sandbox-submit.js';

const HOSTILE_MS = Number(process.env.HOSTILE_BODIES_MS ?? 5000);
const QUIET_MS = 3000;

/** Each body once: the route, and JSON under 1 MiB that the old validation walked item by item. */
const BODIES: { path: string; body: string }[] = [
  // 500,000 numbers where addresses are expected.
  {
    path: '/v2/verify/email/bulk',
    body: `{"emails":[${Array.from({ length: 500_000 }, () => '1').join(',')}]}`,
  },
  // 300,000 objects where records are expected.
  { path: '/v2/batch', body: `{"type":"verify_email","records":[${Array(300_000).fill('{}').join(',')}]}` },
  // 60,000 unknown keys beside a real field.
  {
    path: '/v2/verify/email',
    body: JSON.stringify({
      email: 'a@example.com',
      ...Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`k${i}`, 0])),
    }),
  },
];

export async function runHostileBodiesBenchmark(): Promise<void> {
  const served = await startServe();
  try {
    for (let i = 0; i < 50; i++) await (await fetch(`${served.url}/v2/health`)).arrayBuffer();
    const quiet = await probeHealth(served.url, new Promise((resolve) => setTimeout(resolve, QUIET_MS)));
    const statuses = new Map<number, number>();
    const stopAt = performance.now() + HOSTILE_MS;
    const sender = async (index: number) => {
      const { path, body } = BODIES[index] as (typeof BODIES)[number];
      while (performance.now() < stopAt) {
        const response = await fetch(`${served.url}${path}`, {
          method: 'POST',
          headers: { 'x-api-key': served.testKey, 'content-type': 'application/json' },
          body,
        });
        await response.arrayBuffer();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      }
    };
    const hostile = Promise.all(BODIES.map((_, index) => sender(index)));
    const busy = await probeHealth(served.url, hostile);
    const after = await probeHealth(served.url, new Promise((resolve) => setTimeout(resolve, QUIET_MS)));
    const sizes = BODIES.map(({ body }) => `${(body.length / 1024).toFixed(0)} KiB`).join(', ');
    console.log(`\n## GET /v2/health while three clients send hostile JSON bodies (${sizes})\n`);
    console.log('| phase | health latency |');
    console.log('|---|---|');
    console.log(`| quiet before (${QUIET_MS / 1000} s) | ${describe(quiet)} |`);
    console.log(`| under the bodies (${HOSTILE_MS / 1000} s) | ${describe(busy)} |`);
    console.log(`| quiet after (${QUIET_MS / 1000} s) | ${describe(after)} |`);
    const answered = [...statuses].map(([status, count]) => `${count}× ${status}`).join(', ');
    console.log(`\nthe hostile bodies were answered: ${answered}`);
    console.log(
      `load average at the end: ${loadavg()
        .map((load) => load.toFixed(1))
        .join(', ')}`,
    );
  } finally {
    await served.stop();
  }
}
