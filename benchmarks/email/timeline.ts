// Where the time of the SMTP benchmark's latency model goes: one verifyMany over the same fakes,
// recording per session when it asked for a connection, connected and closed, how long each
// reply took to arrive, and the client's event-loop delay. A diagnostic, not part of `pnpm bench`:
//   node --conditions=source --import tsx email/timeline.ts
// Settings: R (RCPTs per session, 20), RUNS (2), MODEL (latency | service), ADDRESSES (the first
// n addresses only; ADDRESSES=1 times a lone session on an otherwise idle client).
import { connect } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { SocketFactory } from '@svc/email-verifier';
// Internal on purpose: timing each reply and the TLS handshake needs the connection class itself.
import { SmtpConnection } from '../../packages/email-verifier/src/smtp/connection.js';
import { benchVerifier } from './bench-verifier.js';
import { startFakeInternet } from './fake-internet.js';
import { buildTopology } from './topology.js';

const R = Number(process.env.R ?? 20);
const RUNS = Number(process.env.RUNS ?? 2);
const MODEL = process.env.MODEL === 'service' ? 'service' : 'latency';
const MX_HOSTS = 20;
const hosts = Array.from({ length: MX_HOSTS }, (_, index) => `127.0.0.${2 + index}`);
const world = buildTopology({ addresses: 10_000, domains: 200, hosts });
const fakes = await startFakeInternet({
  ...world,
  hosts,
  port: 25,
  replyDelayMs: 20,
  replyDelayModel: MODEL,
});

interface Session {
  host: string;
  asked: number;
  connected: number;
  closed: number;
}
let t0 = 0;
const now = () => performance.now() - t0;
const phases = new Map<string, number[]>();
const note = (phase: string, ms: number) => phases.set(phase, [...(phases.get(phase) ?? []), ms]);

// Times every reply read (by its position in the session), the TLS handshake and close().
const replyCount = new WeakMap<object, number>();
const proto = SmtpConnection.prototype as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
for (const name of ['read', 'startTls', 'close']) {
  const original = proto[name] as (...args: unknown[]) => Promise<unknown>;
  proto[name] = async function (this: object, ...args: unknown[]) {
    const started = performance.now();
    try {
      return await original.apply(this, args);
    } finally {
      let phase = name;
      if (name === 'read') {
        const count = (replyCount.get(this) ?? 0) + 1;
        replyCount.set(this, count);
        phase = `reply ${count > 5 ? '6+' : count}`;
      }
      note(phase, performance.now() - started);
    }
  };
}

const stats = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, value) => sum + value, 0) / Math.max(1, sorted.length);
  const at = (share: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] ?? 0;
  return `mean ${mean.toFixed(1)} p50 ${at(0.5).toFixed(1)} p90 ${at(0.9).toFixed(1)} ms (n=${sorted.length})`;
};

for (let run = 1; run <= RUNS; run++) {
  await fakes.reset();
  phases.clear();
  const sessions: Session[] = [];
  const socketFactory: SocketFactory = (host, port, signal) =>
    new Promise((resolve, reject) => {
      const session: Session = { host, asked: now(), connected: 0, closed: 0 };
      sessions.push(session);
      const socket = connect({ host, port });
      signal.addEventListener('abort', () => socket.destroy(), { once: true });
      // STARTTLS takes the plain socket's listeners away; the close is still seen on the handle.
      const closed = () => {
        session.closed ||= now();
      };
      socket.once('connect', () => {
        session.connected = now();
        resolve(socket);
      });
      socket.once('error', reject);
      const removeAll = socket.removeAllListeners.bind(socket);
      socket.removeAllListeners = ((event?: string | symbol) => {
        removeAll(event as string);
        if (event === 'close') socket.once('close', closed);
        return socket;
      }) as typeof socket.removeAllListeners;
      socket.once('close', closed);
    });
  const verifier = benchVerifier(fakes, {
    perHostConcurrency: 2,
    concurrency: 50,
    maxRcptsPerSession: R,
    socketFactory,
  });
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  t0 = performance.now();
  await verifier.verifyMany(
    world.addresses.slice(0, Number(process.env.ADDRESSES ?? Number.POSITIVE_INFINITY)),
    {
      probe_mailbox: true,
    },
  );
  const total = now();
  delay.disable();
  await fakes.stats();
  // Callers are answered before their sessions say QUIT: wait for the last sessions to close.
  for (let waited = 0; sessions.some((session) => !session.closed) && waited < 2000; waited += 5)
    await new Promise((resolve) => setTimeout(resolve, 5));

  const byHost = new Map<string, Session[]>();
  for (const session of sessions) byHost.set(session.host, [...(byHost.get(session.host) ?? []), session]);
  const gaps: number[] = [];
  let busy = 0;
  for (const list of byHost.values()) {
    // A slot is handed on when a session closes; the next session asks for a connection then.
    const frees = list.slice(0, 2).map((session) => session.closed);
    for (const session of list.slice(2)) {
      frees.sort((a, b) => a - b);
      gaps.push(session.asked - (frees.shift() as number));
      frees.push(session.closed);
    }
    for (const session of list) busy += session.closed - session.asked;
  }
  const first = Math.min(...sessions.map((session) => session.asked));
  const last = Math.max(...sessions.map((session) => session.closed));
  const perMx = [...byHost.values()].map((list) => list.length);
  console.log(
    `\nrun ${run} (${MODEL}, R=${R}): ${total.toFixed(0)} ms; first connection asked at ${first.toFixed(0)} ms; ` +
      `${sessions.length} sessions (${Math.min(...perMx)}–${Math.max(...perMx)} per MX); ` +
      `slots busy ${((100 * busy) / (2 * MX_HOSTS * (last - first))).toFixed(0)}% between the first connection and the last close`,
  );
  console.log(
    `  session, connect to close: ${stats(sessions.map((session) => session.closed - session.connected))}`,
  );
  console.log(`  slot hand-over, close to next connection asked: ${stats(gaps)}`);
  for (const [phase, values] of [...phases].sort()) console.log(`  ${phase}: ${stats(values)}`);
  console.log(
    `  client event-loop delay: mean ${(delay.mean / 1e6).toFixed(1)} p90 ${(delay.percentile(90) / 1e6).toFixed(1)} p99 ${(delay.percentile(99) / 1e6).toFixed(1)} ms`,
  );
}
await fakes.close();
