// Table 2: 100,000 requests of a hostile mix against our server as `svc serve` runs it (SQLite
// control plane, request log on): valid calls, invalid bodies and addresses, unknown keys, and
// over-limit bursts on a Free-plan account. Every response must be a 200 or the spec's error body
// with its own status (§7: code, message, request_id equal to X-Request-Id; Retry-After on 429);
// no 5xx; the server's RSS and heap flat from the warm-up to the end.
import { ERROR_TABLE, isErrorCode } from '@svc/core';
import { startDnsServer } from '@svc/testkit';
import autocannon from 'autocannon';
import { seeded } from '../lib/measure.js';
import { benchEmails, benchZones, hostileBodies, publicAddresses } from './inputs.js';
import type { ServerChildKeys, ServerChildMemory } from './server-child.js';
import { startServerProcess } from './server-process.js';

const TOTAL = Number(process.env.SERVER_MIX_REQUESTS ?? 100_000);
const WARMUP = Math.min(10_000, TOTAL);
const SEGMENTS = 4;
/** A run of Free-plan requests sent back to back: far past its burst of 10 at 1 request/s. */
const BURST = 25;

/** What a kind of request should get; anything else is counted as a surprise. */
const KINDS = {
  'valid: geo, live key': [200],
  'valid: verify, live key': [200],
  'valid: verify, test key (sandbox)': [200],
  'invalid body or address': [400, 422],
  // The audit's bodies (issue 24 item 2): refused while they stream in, never a 5xx or a stall.
  'hostile body (under 1 MiB, wrong-typed items)': [400, 413],
  'unknown or missing key': [401, 429],
  'Free plan burst': [200, 429, 402],
  // Without an account they share their client address's bucket (10/s, burst 100): past it, 429.
  'unknown path or method': [404, 429],
} as const satisfies Record<string, readonly number[]>;
type Kind = keyof typeof KINDS;

/** The share of each kind (the Free plan's comes in bursts of BURST). */
const WEIGHTS: [Kind, number][] = [
  ['valid: geo, live key', 0.25],
  ['valid: verify, live key', 0.2],
  ['valid: verify, test key (sandbox)', 0.05],
  ['invalid body or address', 0.198],
  ['hostile body (under 1 MiB, wrong-typed items)', 0.002],
  ['unknown or missing key', 0.15],
  ['Free plan burst', 0.1],
  ['unknown path or method', 0.05],
];

/** Per draw: a Free-plan draw starts a burst of BURST, so it is drawn BURST times less often. */
const DRAWS = WEIGHTS.map(([kind, share]): [Kind, number] => [
  kind,
  kind === 'Free plan burst' ? share / BURST : share,
]);
const totalDraw = DRAWS.reduce((sum, [, weight]) => sum + weight, 0);

interface Shot {
  kind: Kind;
  request: autocannon.Request;
}

/** The deterministic request stream; each kind of caller has its own client address (X-Forwarded-For). */
function requestStream(keys: ServerChildKeys): () => Shot {
  const random = seeded(11);
  const ips = publicAddresses(2_000, 3);
  const emails = benchEmails(2_000);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const json = (key: string, client: string) => ({
    'content-type': 'application/json',
    'x-api-key': key,
    'x-forwarded-for': client,
  });
  // Requests without a body send no Content-Type.
  const plain = (key: string, client: string) => ({ 'x-api-key': key, 'x-forwarded-for': client });
  const invalid: (() => autocannon.Request)[] = [
    () => ({
      method: 'POST',
      path: '/v2/verify/email',
      headers: json(keys.unlimitedLive, '198.51.100.20'),
      body: '{"email":',
    }),
    () => ({
      method: 'POST',
      path: '/v2/verify/email',
      headers: json(keys.unlimitedLive, '198.51.100.20'),
      body: '{}',
    }),
    () => ({
      method: 'POST',
      path: '/v2/verify/email',
      headers: json(keys.unlimitedLive, '198.51.100.20'),
      body: '{"email":42}',
    }),
    () => ({
      method: 'POST',
      path: '/v2/verify/email',
      headers: json(keys.unlimitedLive, '198.51.100.20'),
      body: '{"email":"a@shop001.bench-mail.com","options":{"probe_mailbox":"yes"}}',
    }),
    () => ({
      method: 'POST',
      path: '/v2/verify/email',
      headers: json(keys.unlimitedLive, '198.51.100.20'),
      body: '{"email":"not an address"}',
    }),
    () => ({
      method: 'POST',
      path: '/v2/verify/email',
      headers: { ...json(keys.unlimitedLive, '198.51.100.20'), 'content-type': 'text/xml' },
      body: '<email>a@b.com</email>',
    }),
    () => ({ method: 'GET', path: '/v2/geo/10.1.2.3', headers: plain(keys.unlimitedLive, '198.51.100.20') }),
    () => ({ method: 'GET', path: '/v2/geo/999.1.1.1', headers: plain(keys.unlimitedLive, '198.51.100.20') }),
  ];
  let burstLeft = 0;
  let attacker = 0;
  return () => {
    let kind: Kind;
    if (burstLeft > 0) {
      burstLeft--;
      kind = 'Free plan burst';
    } else {
      let draw = random() * totalDraw;
      kind = DRAWS[DRAWS.length - 1]?.[0] as Kind;
      for (const [candidate, weight] of DRAWS) {
        if (draw < weight) {
          kind = candidate;
          break;
        }
        draw -= weight;
      }
      if (kind === 'Free plan burst') burstLeft = BURST - 1;
    }
    switch (kind) {
      case 'valid: geo, live key':
        return {
          kind,
          request: {
            method: 'GET',
            path: `/v2/geo/${pick(ips)}`,
            headers: plain(keys.unlimitedLive, '198.51.100.10'),
          },
        };
      case 'valid: verify, live key':
        return {
          kind,
          request: {
            method: 'POST',
            path: '/v2/verify/email',
            headers: json(keys.unlimitedLive, '198.51.100.10'),
            body: JSON.stringify({ email: pick(emails) }),
          },
        };
      case 'valid: verify, test key (sandbox)':
        return {
          kind,
          request: {
            method: 'POST',
            path: '/v2/verify/email',
            headers: json(keys.unlimitedTest, '198.51.100.11'),
            body: JSON.stringify({
              email: `${pick(['deliverable', 'undeliverable', 'risky', 'catch_all'])}@example.com`,
            }),
          },
        };
      case 'invalid body or address':
        return { kind, request: pick(invalid)() };
      case 'hostile body (under 1 MiB, wrong-typed items)': {
        const { path, body } = pick(hostileBodies());
        return {
          kind,
          request: { method: 'POST', path, headers: json(keys.unlimitedTest, '198.51.100.21'), body },
        };
      }
      case 'unknown or missing key': {
        // 50 guessing addresses: each gets its 20 failures a minute as 401, then 429.
        const client = `203.0.113.${attacker++ % 50}`;
        const key = pick(['sk_live_0000000000000000000000000000', 'sk_test_bad', 'hello', '']);
        const headers: Record<string, string> = { 'x-forwarded-for': client };
        if (key) headers['x-api-key'] = key;
        return { kind, request: { method: 'GET', path: `/v2/geo/${pick(ips)}`, headers } };
      }
      case 'Free plan burst':
        return {
          kind,
          request: {
            method: 'GET',
            path: `/v2/geo/${pick(ips)}`,
            headers: plain(keys.freeLive, '198.51.100.30'),
          },
        };
      default:
        return {
          kind,
          request: pick<autocannon.Request>([
            { method: 'GET', path: '/v2/nope', headers: plain(keys.unlimitedLive, '198.51.100.10') },
            { method: 'GET', path: '/v1/geo/8.8.8.8', headers: plain(keys.unlimitedLive, '198.51.100.10') },
            {
              method: 'DELETE',
              path: '/v2/verify/email',
              headers: plain(keys.unlimitedLive, '198.51.100.10'),
            },
          ]),
        };
    }
  };
}

/** Why a response is not the spec's (null when it is). */
export function specProblem(status: number, body: string, headers: Record<string, unknown>): string | null {
  if (status === 200) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return `${status} with a body that is not JSON`;
  }
  const error = (parsed as { error?: Record<string, unknown> } | null)?.error;
  const keys = Object.keys((parsed as object) ?? {});
  if (!error || keys.length !== 1) return `${status} without the spec's error body`;
  const fields = Object.keys(error).sort().join(',');
  if (fields !== 'code,message,request_id') return `${status} error body with fields ${fields}`;
  if (!isErrorCode(error.code)) return `${status} with code ${String(error.code)}, not one of the spec's`;
  if (ERROR_TABLE[error.code].status !== status)
    return `${status} with code ${error.code} (its status is ${ERROR_TABLE[error.code].status})`;
  if (typeof error.message !== 'string' || error.message === '')
    return `${status} ${error.code} without a message`;
  const requestId = headers['x-request-id'];
  if (error.request_id !== requestId) return `${status} ${error.code}: request_id is not X-Request-Id`;
  if (status === 429 && !headers['retry-after']) return '429 without Retry-After';
  return null;
}

/** Counts of one kind of request. */
export interface MixKindRow {
  kind: Kind;
  requests: number;
  byStatus: Record<string, number>;
  /** Responses with a status this kind should not get. */
  unexpected: number;
}

/** The mix's outcome. */
export interface MixReport {
  requests: number;
  seconds: number;
  kinds: MixKindRow[];
  /** Responses that are not a 200 or the spec's error body (with an example of each cause). */
  outsideSpec: number;
  examples: string[];
  fiveHundreds: number;
  /** Connection errors and timeouts. */
  socketErrors: number;
  /** After the warm-up, then after each quarter. */
  memory: ServerChildMemory[];
}

export async function runMix(): Promise<MixReport> {
  const dns = await startDnsServer({ zones: benchZones() });
  // Trusting loopback's X-Forwarded-For lets each kind of caller be its own client address.
  const server = await startServerProcess({
    variant: 'ours',
    controlPlane: 'sqlite-write-behind',
    logLevel: 'info',
    trustedProxies: ['127.0.0.1'],
    dns: dns.address,
  });
  try {
    const keys = server.keys as ServerChildKeys;
    const next = requestStream(keys);
    const kinds = new Map<Kind, MixKindRow>();
    const examples = new Set<string>();
    let outsideSpec = 0;
    let counting = false;
    let responses = 0;
    const fire = (amount: number) =>
      autocannon({
        url: server.url,
        connections: Math.min(10, amount),
        amount,
        // autocannon notices the end at its sampling ticks (1 s by default): tick often, as the
        // mix is fired in several runs.
        sampleInt: 50,
        requests: [
          {
            setupRequest(request, context) {
              const shot = next();
              (context as { kind?: Kind }).kind = shot.kind;
              return { ...request, ...shot.request };
            },
            onResponse(status, body, context, headers) {
              responses++;
              if (!counting) return;
              const kind = (context as { kind: Kind }).kind;
              const row = kinds.get(kind) ?? { kind, requests: 0, byStatus: {}, unexpected: 0 };
              kinds.set(kind, row);
              row.requests++;
              row.byStatus[status] = (row.byStatus[status] ?? 0) + 1;
              if (!(KINDS[kind] as readonly number[]).includes(status)) row.unexpected++;
              const lower = Object.fromEntries(
                Object.entries(headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
              );
              const problem = specProblem(status, body, lower);
              if (problem) {
                outsideSpec++;
                if (examples.size < 5) examples.add(`${kind}: ${problem}`);
              }
            },
          },
        ],
      });
    while (responses < WARMUP) await fire(WARMUP - responses);
    const memory = [await server.memory({ collect: true })];
    counting = true;
    const started = performance.now();
    let fiveHundreds = 0;
    let socketErrors = 0;
    for (let segment = 1; segment <= SEGMENTS; segment++) {
      // Fastify closes the connection after a body it cannot parse (Connection: close); the
      // request autocannon has already written on it is lost, so fire until the answers add up.
      const target = WARMUP + Math.round((TOTAL * segment) / SEGMENTS);
      while (responses < target) {
        const result = await fire(target - responses);
        fiveHundreds += result['5xx'];
        socketErrors += result.errors + result.timeouts;
      }
      memory.push(await server.memory({ collect: true }));
    }
    const requests = responses - WARMUP;
    const seconds = (performance.now() - started) / 1000;
    return {
      requests,
      seconds,
      kinds: [...kinds.values()],
      outsideSpec,
      examples: [...examples],
      fiveHundreds,
      socketErrors,
      memory,
    };
  } finally {
    await server.close();
    await dns.close();
  }
}

export function printMix(report: MixReport): void {
  console.log(
    `\n## Server: ${report.requests.toLocaleString('en')}-request mix against createServer as svc serve runs it (SQLite, usage written behind, 10 connections, ${Math.round(report.requests / report.seconds).toLocaleString('en')} req/s)\n`,
  );
  console.log('| kind of request | requests | responses by status | unexpected status |');
  console.log('|---|---:|---|---:|');
  for (const row of report.kinds) {
    const statuses = Object.entries(row.byStatus)
      .map(([status, count]) => `${status}: ${count.toLocaleString('en')}`)
      .join(', ');
    console.log(`| ${row.kind} | ${row.requests.toLocaleString('en')} | ${statuses} | ${row.unexpected} |`);
  }
  const [first, ...rest] = report.memory;
  const last = rest.at(-1) ?? first;
  const figures = (memory: ServerChildMemory | undefined) =>
    `${memory?.rssMb.toFixed(0)} MB RSS / ${memory?.heapUsedMb.toFixed(1)} MB heap`;
  console.log(
    `\nOutside the spec's error set: ${report.outsideSpec} (goal 0)${report.examples.length ? ` — ${report.examples.join('; ')}` : ''}. ` +
      `5xx: ${report.fiveHundreds} (goal 0). Socket errors: ${report.socketErrors}.`,
  );
  console.log(
    `Server memory after a ${WARMUP.toLocaleString('en')}-request warm-up: ${figures(first)}; after each quarter: ${rest
      .map((memory) => `${memory.rssMb.toFixed(0)}/${memory.heapUsedMb.toFixed(1)}`)
      .join(
        ', ',
      )} MB (RSS/heap after GC); end − warm-up: ${((last?.rssMb ?? 0) - (first?.rssMb ?? 0)).toFixed(0)} MB RSS, ${((last?.heapUsedMb ?? 0) - (first?.heapUsedMb ?? 0)).toFixed(1)} MB heap (goal: flat).`,
  );
}
