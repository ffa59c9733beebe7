// Table 2: a 50,000-record verify_email job over 500 domains, run by the batch runner on the
// SQLite store against the testkit's fake DNS and MTAs (20 ms before every SMTP reply), beside
// the floor that the per-MX and global connection limits allow. The fakes listen on
// 127.0.1.1-25 port 2525 in a child process, so no root is needed and their work is not charged
// to the runner.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBatchRunner, createSqliteStore, createVerifyEmailProcessor } from '@svc/batch-runner';
import { createNodeDnsResolver, createVerifier } from '@svc/email-verifier';
import { startFakeInternet } from '../email/fake-internet.js';
import { buildTopology, verificationFloor } from '../email/topology.js';
import { type Measurement, printTable } from '../lib/measure.js';

const RECORDS = Number(process.env.BATCH_VERIFY_RECORDS ?? 50_000);
const DOMAINS = 500;
const MX_HOSTS = 25;
const PORT = 2525;
const REPLY_DELAY_MS = 20;
/** The verifier's default politeness: 2 sessions per MX, 50 in all, 20 RCPTs per session. */
const PER_MX = 2;
const GLOBAL = 50;
const RCPTS = 20;
/** Greeting, EHLO, STARTTLS, EHLO, MAIL, QUIT. */
const FIXED_REPLIES = 6;
/** Records per chunk: the verify_email processor's default 1,000, and 2,500 (fuller sessions). */
const CHUNK_SIZES = (process.env.BATCH_VERIFY_CHUNKS ?? '1000,2500').split(',').map(Number);
/** Chunks in flight: the runner's default. */
const CONCURRENCY = Number(process.env.BATCH_VERIFY_CONCURRENCY ?? 4);

export async function runBatchVerifyBenchmark(): Promise<Measurement[]> {
  const hosts = Array.from({ length: MX_HOSTS }, (_, index) => `127.0.1.${1 + index}`);
  const { addresses, zones, mailboxes, domains } = buildTopology({
    addresses: RECORDS,
    domains: DOMAINS,
    hosts,
  });
  const fakes = await startFakeInternet({
    zones,
    hosts,
    port: PORT,
    mailboxes,
    domains,
    replyDelayMs: REPLY_DELAY_MS,
  });
  const rows: Measurement[] = [];
  try {
    for (const chunkSize of CHUNK_SIZES) {
      await fakes.reset();
      const store = await createSqliteStore({
        path: join(mkdtempSync(join(tmpdir(), 'bench-verify-')), 'jobs.db'),
      });
      const verifier = createVerifier({
        dns: createNodeDnsResolver({ servers: [fakes.dnsAddress] }),
        smtp: {
          port: PORT,
          heloName: 'bench.example.com',
          allowPrivateAddresses: true,
          perHostConcurrency: PER_MX,
          concurrency: GLOBAL,
          maxRcptsPerSession: RCPTS,
        },
      });
      const runner = createBatchRunner({
        store,
        processors: [createVerifyEmailProcessor(verifier, { probe_mailbox: true, chunkSize })],
        concurrency: CONCURRENCY,
        pollIntervalMs: 10,
      });
      const started = performance.now();
      const job = await runner.submit({ type: 'verify_email', records: addresses });
      runner.start();
      let current = job;
      while (current.status === 'queued' || current.status === 'running') {
        await new Promise((resolve) => setTimeout(resolve, 50));
        current = await runner.get(job.id);
      }
      const seconds = (performance.now() - started) / 1000;
      await runner.close();
      await store.close();
      const stats = await fakes.stats();
      rows.push({
        name: `runner, SQLite, ${CONCURRENCY} chunks of ${chunkSize.toLocaleString('en')} in flight`,
        operations: RECORDS,
        seconds,
        rssMb: process.memoryUsage().rss / 1e6,
        note: `${current.status}; ${stats.sessions} sessions, ≤${stats.peakPerMx} per MX; ${JSON.stringify(current.counts)}`,
      });
    }
  } finally {
    await fakes.close();
  }
  const floor = verificationFloor({
    addresses: RECORDS,
    domains: DOMAINS,
    mxHosts: MX_HOSTS,
    rcptsPerSession: RCPTS,
    fixedReplies: FIXED_REPLIES,
    replyDelayMs: REPLY_DELAY_MS,
    perMx: PER_MX,
    global: GLOBAL,
  });
  rows.push({
    name: 'floor allowed by the connection limits',
    operations: RECORDS,
    seconds: floor.seconds,
    rssMb: 0,
    note: `(${floor.sessionsPerMx} sessions × ${FIXED_REPLIES} + ${floor.rcptsPerMx} RCPTs) × ${REPLY_DELAY_MS} ms per MX over ${floor.connections} connections`,
  });
  printTable(
    `Batch verify_email: ${RECORDS.toLocaleString('en')} addresses, ${DOMAINS} domains on ${MX_HOSTS} fake MX, ${REPLY_DELAY_MS} ms per reply (addresses/s)`,
    rows,
    'floor allowed by the connection limits',
  );
  console.log(
    `\nFloor: ${MX_HOSTS} MX × ${PER_MX} sessions = ${MX_HOSTS * PER_MX} connections (global limit ${GLOBAL}); each MX answers ` +
      `${floor.rcptsPerMx} RCPTs (its addresses + one catch-all probe per domain) in ≥${floor.sessionsPerMx} sessions of ≤${RCPTS}, ` +
      `${floor.repliesPerMx} replies × ${REPLY_DELAY_MS} ms / ${PER_MX} = ${floor.seconds.toFixed(1)} s.`,
  );
  return rows;
}
