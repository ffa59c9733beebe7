// Full verification (DNS + SMTP mailbox probe) against the testkit's fake DNS and fake MTAs with a
// fixed delay before every SMTP reply: ours (verifyMany) against deep-email-validator, in one process.
// Two tables, one per meaning of "20 ms per reply" (testkit's replyDelayModel): 'service' is the
// server's own time, one command after another, so pipelining cannot help; 'latency' is the
// network's, each reply 20 ms after its command, so pipelined RCPTs share one round trip (as they
// do against a real MTA across the internet). deep-email-validator neither pipelines nor reuses a
// connection, so the model does not change its speed.
//
// Routing deep-email-validator to the fakes without touching /etc/hosts: it resolves MX records
// with node:dns's global resolver (so dns.setServers points it at the fake DNS), then dials the MX
// exchange name on port 25 through getaddrinfo. Every MX exchange here is an IP literal
// (`127.0.0.7`), which net.connect dials without any name lookup; for our verifier, which resolves
// MX hosts through its DNS backend, the fake DNS also answers an A record for the name `127.0.0.7`.
// The fake MTAs therefore listen on 127.0.0.2..21 port 25 (root may bind it here). The fakes run
// in a child process (see fake-internet.ts), so their work is not charged to either client.
import dns from 'node:dns';
import type { VerificationResult } from '@svc/email-verifier';
import { validate } from 'deep-email-validator';
import { type Measurement, measure, printTable, trackPeakRss } from '../lib/measure.js';
import { benchVerifier } from './bench-verifier.js';
import { startFakeInternet } from './fake-internet.js';
import { buildTopology, verificationFloor } from './topology.js';

const ADDRESSES = Number(process.env.EMAIL_SMTP_ADDRESSES ?? 10_000);
const DOMAINS = 200;
const MX_HOSTS = 20;
const REPLY_DELAY_MS = 20;
/** Our politeness settings (the verifier's defaults, spelt out because the floor depends on them). */
const PER_MX_CONCURRENCY = 2;
const GLOBAL_CONCURRENCY = 50;
/**
 * RCPTs per session: 20 is the verifier's default; 100 is the least a server must accept in one
 * transaction (RFC 5321 §4.5.3.1.8), and the verifier learns any lower limit from 452 replies.
 */
const RCPTS_PER_SESSION = numbers(process.env.EMAIL_SMTP_RCPTS ?? '20,100');
/** Replies in one of our sessions besides the RCPTs: greeting, EHLO, STARTTLS, EHLO, MAIL, QUIT. */
const FIXED_REPLIES_PER_SESSION = 6;
/**
 * Round trips of a session under the latency model: greeting, EHLO, STARTTLS, EHLO, then MAIL,
 * the RCPTs and QUIT pipelined as one (RFC 2920 lets QUIT end a group); the session is over when
 * those are answered, so no client can take fewer.
 */
const ROUND_TRIPS_PIPELINED = 5;
/**
 * deep-email-validator opens one connection per address and has no concurrency control of its own;
 * a caller runs it with Promise.all over batches. 40 is the connection budget ours uses
 * (20 MX × 2), 10 a typical hand-picked batch.
 */
const DEEP_BATCHES = numbers(process.env.EMAIL_SMTP_DEEP_BATCHES ?? '40,10,1');
/** Batch 1 is its README's usage (`await validate(email)` in a loop): 300 addresses are plenty. */
const DEEP_SEQUENTIAL_ADDRESSES = 300;
/** Addresses given to each deep-email-validator run (a subset: one connection and 4 replies each). */
const DEEP_ADDRESSES = Math.min(ADDRESSES, Number(process.env.EMAIL_SMTP_DEEP_ADDRESSES ?? ADDRESSES));

/** Positive integers from a comma-separated setting ('' gives none). */
function numbers(list: string): number[] {
  const values = list === '' ? [] : list.split(',').map(Number);
  const bad = values.find((value) => !Number.isInteger(value) || value <= 0);
  if (bad !== undefined) throw new TypeError(`expected positive integers separated by commas, got "${list}"`);
  return values;
}

const mxHost = (index: number) => `127.0.0.${2 + (index % MX_HOSTS)}`;
const tallyOf = (labels: string[]) => {
  const tally: Record<string, number> = {};
  for (const label of labels) tally[label] = (tally[label] ?? 0) + 1;
  return Object.entries(tally)
    .sort((a, b) => b[1] - a[1])
    .map(([label, value]) => `${label} ${value}`)
    .join(', ');
};

/** Runs the DNS + SMTP suite under both delay models and prints a table for each. */
export async function runEmailSmtpBenchmark(): Promise<Measurement[]> {
  const models = (process.env.EMAIL_SMTP_MODELS ?? 'service,latency').split(',');
  const rows: Measurement[] = [];
  if (models.includes('service')) rows.push(...(await runModel('service', DEEP_BATCHES, DEEP_ADDRESSES)));
  if (models.includes('latency'))
    rows.push(...(await runModel('latency', DEEP_BATCHES.slice(0, 1), Math.min(DEEP_ADDRESSES, 2000))));
  return rows;
}

/** The suite against fakes on 127.0.0.2-21:25 with one delay model; prints its table with the floor. */
async function runModel(
  model: 'service' | 'latency',
  deepBatches: number[],
  deepAddresses: number,
): Promise<Measurement[]> {
  const hosts = Array.from({ length: MX_HOSTS }, (_, index) => mxHost(index));
  const { addresses, zones, mailboxes, domains } = buildTopology({
    addresses: ADDRESSES,
    domains: DOMAINS,
    hosts,
  });
  const fakes = await startFakeInternet({
    zones,
    hosts,
    port: 25,
    mailboxes,
    domains,
    replyDelayMs: REPLY_DELAY_MS,
    replyDelayModel: model,
  });
  const rows: Measurement[] = [];
  const answers: string[] = [];
  try {
    // Ours: a fresh verifier (cold DNS cache) per configuration, the whole list in one verifyMany call.
    const ours: Array<{ row: Measurement; rcpts: number; rssBefore: number }> = [];
    for (const rcpts of RCPTS_PER_SESSION) {
      await fakes.reset();
      const verifier = benchVerifier(fakes, {
        perHostConcurrency: PER_MX_CONCURRENCY,
        concurrency: GLOBAL_CONCURRENCY,
        maxRcptsPerSession: rcpts,
      });
      let results: VerificationResult[] = [];
      const rssBefore = process.memoryUsage().rss / 1e6;
      const stopOurs = trackPeakRss();
      const row = await measure(
        `ours verifyMany (probe_mailbox), ${rcpts} RCPTs/session`,
        addresses.length,
        async () => {
          results = await verifier.verifyMany(addresses, { probe_mailbox: true });
        },
      );
      row.rssMb = stopOurs();
      const stats = await fakes.stats();
      row.note = `${stats.sessions} sessions, ≤${stats.peakPerMx} connections per MX, STARTTLS, catch-all checked; the fakes used ${stats.cpuSeconds.toFixed(1)} CPU s`;
      rows.push(row);
      ours.push({ row, rcpts, rssBefore });
      answers.push(`- ours (${rcpts} RCPTs/session): ${tallyOf(results.map((result) => result.state))}`);
    }

    // deep-email-validator: node:dns's global servers → the fake DNS; MX names are IP literals.
    const savedServers = dns.getServers();
    dns.setServers([fakes.dnsAddress]);
    try {
      for (const batch of deepBatches) {
        const subset = addresses.slice(
          0,
          batch === 1 ? Math.min(deepAddresses, DEEP_SEQUENTIAL_ADDRESSES) : deepAddresses,
        );
        await fakes.reset();
        const verdicts: string[] = [];
        const stopDeep = trackPeakRss();
        const row = await measure(
          batch === 1
            ? 'deep-email-validator validate, one at a time (its README)'
            : `deep-email-validator validate, Promise.all batches of ${batch}`,
          subset.length,
          async () => {
            for (let start = 0; start < subset.length; start += batch) {
              const outputs = await Promise.all(
                subset.slice(start, start + batch).map((email) => validate(email)),
              );
              for (const output of outputs)
                verdicts.push(output.valid ? 'valid' : `invalid:${output.reason}`);
            }
          },
        );
        row.rssMb = stopDeep();
        const stats = await fakes.stats();
        row.note = `${stats.sessions} sessions (one per address), ≤${stats.peakPerMx} connections per MX${
          subset.length < addresses.length
            ? `; first ${subset.length.toLocaleString('en')} addresses, rate compared`
            : ''
        }`;
        rows.push(row);
        answers.push(`- deep-email-validator (batches of ${batch}): ${tallyOf(verdicts)}`);
      }
    } finally {
      dns.setServers(savedServers);
    }

    // The floor (see verificationFloor): what no client can beat under our per-MX and global limits.
    const fixed = model === 'latency' ? ROUND_TRIPS_PIPELINED : FIXED_REPLIES_PER_SESSION;
    const floors = RCPTS_PER_SESSION.map((rcpts) => {
      const floor = verificationFloor({
        addresses: addresses.length,
        domains: DOMAINS,
        mxHosts: MX_HOSTS,
        rcptsPerSession: rcpts,
        fixedReplies: fixed,
        replyDelayMs: REPLY_DELAY_MS,
        perMx: PER_MX_CONCURRENCY,
        global: GLOBAL_CONCURRENCY,
        pipelined: model === 'latency',
      });
      // Pipelined, MAIL FROM, the RCPTs and QUIT are one round trip, counted among the fixed ones.
      const rcptTrips = model === 'latency' ? 0 : rcpts;
      const sessionSeconds = ((fixed + rcptTrips) * REPLY_DELAY_MS) / 1000;
      rows.push({
        name: `theoretical floor, ${rcpts} RCPTs/session`,
        operations: addresses.length,
        seconds: floor.seconds,
        rssMb: 0,
        note:
          model === 'latency'
            ? `${floor.sessionsPerMx} sessions × ${fixed} round trips (MAIL + RCPTs + QUIT pipelined as one) × ${REPLY_DELAY_MS} ms / C=${PER_MX_CONCURRENCY}, per MX`
            : `(${floor.sessionsPerMx} sessions × ${FIXED_REPLIES_PER_SESSION} + ${floor.rcptsPerMx} RCPTs) × ${REPLY_DELAY_MS} ms / C=${PER_MX_CONCURRENCY}, per MX`,
      });
      return { rcpts, sessionsPerMx: floor.sessionsPerMx, sessionSeconds, seconds: floor.seconds };
    });
    const addressesPerMx = Math.ceil(addresses.length / MX_HOSTS);
    const rcptsPerMx = addressesPerMx + Math.ceil(DOMAINS / MX_HOSTS);

    const deepRows = rows.filter((row) => row.name.startsWith('deep-email-validator'));
    printTable(
      `Email SMTP, '${model}' delay model: ${addresses.length.toLocaleString('en')} addresses, ${DOMAINS} domains on ${MX_HOSTS} fake MX (127.0.0.2-${1 + MX_HOSTS}:25), ${REPLY_DELAY_MS} ms per reply${
        model === 'latency'
          ? ' (network latency: pipelined commands overlap)'
          : ' (server time: one command after another)'
      }`,
      rows,
      deepRows[0]?.name ?? rows[0]?.name ?? '',
    );
    const rate = (row: Measurement) => row.operations / row.seconds;
    console.log(
      `\nFloor: C=${PER_MX_CONCURRENCY} connections per MX, R RCPTs per session, d=${REPLY_DELAY_MS} ms per reply. ` +
        `A full session is (greeting + EHLO + STARTTLS + EHLO + ${model === 'latency' ? 'MAIL, its R RCPTs and QUIT pipelined in one round trip' : 'MAIL + R×RCPT + QUIT'}) × d. ` +
        `Each MX serves ${addressesPerMx} addresses + ${rcptsPerMx - addressesPerMx} catch-all probes = ${rcptsPerMx} RCPTs ` +
        `in S = ⌈${rcptsPerMx}/R⌉ sessions, so it needs at least ${
          model === 'latency' ? `S × ${fixed}` : `(S × ${fixed} + ${rcptsPerMx})`
        } × d / C.`,
    );
    for (const [index, floor] of floors.entries()) {
      const run = ours[index];
      if (!run) continue;
      const versus = deepRows.map(
        (row) =>
          `${(rate(run.row) / rate(row)).toFixed(1)}× ${row.name.replace('deep-email-validator validate, ', 'deep-email-validator ')}; `,
      );
      console.log(
        `- R=${floor.rcpts}: full session ${floor.sessionSeconds.toFixed(2)} s, S=${floor.sessionsPerMx}, floor ${floor.seconds.toFixed(2)} s = ` +
          `${Math.round(addresses.length / floor.seconds).toLocaleString('en')} addresses/s. Ours: ${Math.round(rate(run.row)).toLocaleString('en')} addresses/s = ` +
          `${((100 * floor.seconds) / run.row.seconds).toFixed(0)}% of the floor rate (${(run.row.seconds / floor.seconds).toFixed(2)}× the floor time); ` +
          `${versus.join('')}peak RSS ${run.row.rssMb.toFixed(0)} MB (${run.rssBefore.toFixed(0)} MB before the run).`,
      );
    }
    console.log('Peak RSS is this process only: the fakes run in a child process.');
    console.log('\nAnswers:');
    for (const line of answers) console.log(line);
    return rows;
  } finally {
    await fakes.close();
  }
}
