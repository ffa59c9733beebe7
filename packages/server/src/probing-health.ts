import {
  blocklistForZone,
  type DoctorOptions,
  type DoctorReport,
  parseSocks5Url,
  runDoctor,
} from '@svc/email-verifier';
import type { ResolvedServerOptions } from './options.js';

/** Where the probing self-check stands, as GET /v2/health shows it to the owner. */
export interface ProbingSnapshot {
  /** `idle`: never run yet; `running`: a run is under way (`report` is the previous one, if any); `ready`. */
  state: 'idle' | 'running' | 'ready';
  /** The last finished run's report; null before the first one finishes. */
  report: DoctorReport | null;
  /** When the last finished run ended (ms since the epoch), or null. */
  finished_at: number | null;
  /** When the report goes stale: the next request after that starts a new run (ms), or null. */
  next_run_at: number | null;
}

/** The self-check of email probing, run at most once per interval whatever the request rate. */
export interface ProbingHealth {
  /**
   * The findings now. Starts a run in the background when there is none yet, when the report is
   * older than the interval, or when `refresh` is asked and the last run started at least the
   * minimum gap ago; never waits for it.
   */
  snapshot(refresh?: boolean): ProbingSnapshot;
  /** Resolves when no run is under way (tests, shutdown). */
  settled(): Promise<void>;
}

/** Options of {@link createProbingHealth}. */
export interface ProbingHealthOptions {
  /** Runs the checks. */
  run: () => Promise<DoctorReport>;
  /** How long a report is served before a request starts a new run. @default 21_600_000 (6 h) */
  intervalMs?: number;
  /** The least time between the starts of two runs, refresh or not. @default 60_000 */
  minGapMs?: number;
  /** @default Date.now */
  now?: () => number;
}

/** One run at a time, cached, started lazily by the owner's health requests. */
export function createProbingHealth(options: ProbingHealthOptions): ProbingHealth {
  const intervalMs = options.intervalMs ?? 6 * 60 * 60 * 1000;
  const minGapMs = options.minGapMs ?? 60_000;
  const now = options.now ?? Date.now;
  let report: DoctorReport | null = null;
  let finishedAt: number | null = null;
  let startedAt: number | null = null;
  let running: Promise<void> | null = null;

  const start = () => {
    startedAt = now();
    running = options
      .run()
      .then(
        (next) => {
          report = next;
        },
        // runDoctor reports what it finds as checks; only a bug or bad options land here, and
        // the previous report stays. Kept as a failed check so the owner sees it.
        (error: unknown) => {
          report = failedRun(error, now());
        },
      )
      .finally(() => {
        finishedAt = now();
        running = null;
      });
  };

  return {
    snapshot(refresh = false) {
      const t = now();
      const stale = finishedAt === null || t - finishedAt >= intervalMs;
      const gapOk = startedAt === null || t - startedAt >= minGapMs;
      if (!running && gapOk && (stale || refresh)) start();
      return {
        state: running ? 'running' : report ? 'ready' : 'idle',
        report,
        finished_at: finishedAt,
        next_run_at: finishedAt === null ? null : finishedAt + intervalMs,
      };
    },
    async settled() {
      while (running) await running;
    },
  };
}

function failedRun(error: unknown, at: number): DoctorReport {
  return {
    status: 'failed',
    checked_at: new Date(at).toISOString(),
    duration_ms: 0,
    identity: {
      public_address: null,
      public_address_source: null,
      helo_name: '',
      mail_from: '',
      proxy: null,
    },
    checks: [
      {
        id: 'doctor',
        group: 'smtp',
        title: 'Self-check',
        status: 'failed',
        message: `The self-check could not run: ${(error as Error).message}. Run svc doctor with the server's settings to see why.`,
        details: {},
      },
    ],
  };
}

/** The doctor options for the identity the server probes with (its `smtp` and `dns` settings, and proxy). */
export function serverDoctorOptions(options: ResolvedServerOptions): DoctorOptions {
  const doctor: DoctorOptions = { port: options.smtp.port };
  if (options.smtp.heloName !== null) doctor.heloName = options.smtp.heloName;
  if (options.smtp.mailFrom !== null) doctor.mailFrom = options.smtp.mailFrom;
  if (options.dns !== null) doctor.dnsServer = options.dns;
  // With a pool, the path most MX hosts take: the first proxy pinned to no provider (else the
  // first). `svc doctor --proxy` checks the others one by one.
  const proxy =
    options.smtp.proxies.find((entry) => (entry.providers ?? []).length === 0) ?? options.smtp.proxies[0];
  if (proxy) doctor.proxy = parseSocks5Url(proxy.url, 'smtp.proxies url');
  const { testHost, publicAddress, blocklists } = options.probing;
  if (testHost !== null) doctor.testHost = testHost;
  if (publicAddress !== null) doctor.publicAddress = publicAddress;
  if (blocklists !== null) doctor.blocklists = blocklists.map(blocklistForZone);
  return doctor;
}

/** The default: runDoctor with the server's identity, every `probing.intervalSeconds` at most (0: never). */
export function defaultProbingHealth(
  options: ResolvedServerOptions,
  now: () => number,
): ProbingHealth | undefined {
  if (options.probing.intervalSeconds === 0) return undefined;
  return createProbingHealth({
    run: () => runDoctor(serverDoctorOptions(options)),
    intervalMs: options.probing.intervalSeconds * 1000,
    now,
  });
}
