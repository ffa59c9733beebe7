import { type DnsFailureKind, DnsQueryError, type DnsResolver } from './resolver.js';

/**
 * Names that exist and have addresses for as long as the internet does (the registries of names
 * and protocols); a resolver that cannot resolve most of them cannot be believed about any other.
 */
export const DEFAULT_DNS_CANARIES: readonly string[] = ['iana.org', 'ietf.org', 'icann.org'];

/** Options of the resolver health check (VerifierOptions `resolverHealth`). */
export interface ResolverHealthOptions {
  /**
   * Names that must resolve (an A or AAAA record) through the verifier's resolver; more than half
   * of them must, or the resolver is unhealthy. An intranet or air-gapped setup names hosts its
   * own resolver serves.
   * @default DEFAULT_DNS_CANARIES (iana.org, ietf.org, icann.org)
   */
  canaries?: readonly string[];
  /** The least time between the starts of two checks. @default 120000 (2 min) */
  minIntervalMs?: number;
  /**
   * Failed domain lookups (NXDOMAIN, SERVFAIL, no answer, no mail records) in a row, without a
   * successful one between, after which a healthy resolver is checked again. @default 5
   */
  burst?: number;
}

/** What one canary name got. */
export interface CanaryOutcome {
  name: string;
  resolved: boolean;
  /** `resolved`, or how the resolver denied it: `NXDOMAIN`, `SERVFAIL`, `REFUSED`, `no answer`, `network error`, `no address`. */
  answer: string;
}

/** The resolver's health as last checked. */
export interface ResolverHealthSnapshot {
  /** `unchecked` until the first check ends; `unhealthy` while at most half the canaries resolve. */
  status: 'unchecked' | 'healthy' | 'unhealthy';
  /** The resolver asked (its servers), for messages. */
  resolver: string;
  /** When the last check ended (ms since the epoch), or null. */
  checkedAt: number | null;
  canaries: CanaryOutcome[];
  /** What was found, for people. */
  message: string;
}

/** One health state per verifier: every verification in the process reads and feeds it. */
export interface ResolverHealth {
  /** The state now; starts a check in the background when one is due, never waits for it. */
  snapshot(): ResolverHealthSnapshot;
  /**
   * The state to judge an answer by: waits for the first check, for a check under way, and for
   * one that is due (unhealthy and the interval passed; or a burst of failures seen and the
   * interval passed).
   */
  trust(): Promise<ResolverHealthSnapshot>;
  /** Tells the state about one domain lookup: `failed` for NXDOMAIN, SERVFAIL, no answer or no mail records. */
  observe(failed: boolean): void;
}

/** Options of {@link createResolverHealth}: the settings plus what they act on. */
export interface ResolverHealthContext extends ResolverHealthOptions {
  /** The resolver checked: asked without the verifier's DNS cache, so a recovery is seen at once. */
  resolver: DnsResolver;
  /** Milliseconds clock. */
  now: () => number;
  /** Called when an unhealthy resolver is found healthy again (the verifier drops cached lies). */
  onRecovered?: () => void;
}

const DENIALS: Record<DnsFailureKind, string> = {
  not_found: 'NXDOMAIN',
  server_failure: 'SERVFAIL',
  refused: 'REFUSED',
  timeout: 'no answer',
  network: 'network error',
};

/** Validates the options; a bad value throws a TypeError naming it. */
export function checkResolverHealthOptions(options: ResolverHealthOptions): Required<ResolverHealthOptions> {
  const canaries = options.canaries ?? DEFAULT_DNS_CANARIES;
  if (!Array.isArray(canaries) || canaries.length === 0 || canaries.length > 20)
    throw new TypeError('resolverHealth.canaries must list 1 to 20 names');
  for (const name of canaries) {
    if (typeof name !== 'string' || !/^[a-z0-9-]+(\.[a-z0-9-]+)*\.?$/i.test(name) || name.length > 253)
      throw new TypeError(`resolverHealth.canaries: ${JSON.stringify(name)} is not a host name`);
  }
  const minIntervalMs = options.minIntervalMs ?? 120_000;
  if (!Number.isInteger(minIntervalMs) || minIntervalMs < 0)
    throw new TypeError(`resolverHealth.minIntervalMs must be a non-negative integer, got ${minIntervalMs}`);
  const burst = options.burst ?? 5;
  if (!Number.isInteger(burst) || burst <= 0)
    throw new TypeError(`resolverHealth.burst must be a positive integer, got ${burst}`);
  return { canaries: [...canaries], minIntervalMs, burst };
}

/** The resolver's health: checked on first use, after a burst of failures, at most every interval. */
export function createResolverHealth(context: ResolverHealthContext): ResolverHealth {
  const { canaries, minIntervalMs, burst } = checkResolverHealthOptions(context);
  const resolverName = context.resolver.name ?? 'unnamed';
  const who =
    context.resolver.name === undefined ? 'the DNS resolver' : `the DNS resolver ${context.resolver.name}`;
  let state: ResolverHealthSnapshot = {
    status: 'unchecked',
    resolver: resolverName,
    checkedAt: null,
    canaries: [],
    message: `${who} has not been checked yet`,
  };
  let startedAt: number | null = null;
  let running: Promise<void> | null = null;
  let failuresInRow = 0;

  const start = () => {
    startedAt = context.now();
    failuresInRow = 0;
    running = Promise.all(canaries.map((name) => askCanary(context.resolver, name))).then((outcomes) => {
      const resolved = outcomes.filter((outcome) => outcome.resolved).length;
      const healthy = resolved * 2 > outcomes.length;
      const wasUnhealthy = state.status === 'unhealthy';
      state = {
        status: healthy ? 'healthy' : 'unhealthy',
        resolver: resolverName,
        checkedAt: context.now(),
        canaries: outcomes,
        message: describe(who, outcomes, healthy),
      };
      running = null;
      if (healthy && wasUnhealthy) context.onRecovered?.();
    });
  };

  const intervalPassed = () => startedAt === null || context.now() - startedAt >= minIntervalMs;
  const due = () =>
    state.status === 'unchecked' ||
    (state.status === 'unhealthy' && intervalPassed()) ||
    (failuresInRow >= burst && intervalPassed());

  return {
    snapshot() {
      if (!running && due()) start();
      return state;
    },
    async trust() {
      if (!running && due()) start();
      while (running) await running;
      return state;
    },
    observe(failed) {
      failuresInRow = failed ? failuresInRow + 1 : 0;
    },
  };
}

async function askCanary(resolver: DnsResolver, name: string): Promise<CanaryOutcome> {
  // Asked from a resolved promise, so a backend that throws instead of rejecting is a denial too.
  const ask = (type: 'a' | 'aaaa') => Promise.resolve().then(() => resolver[type](name));
  const [a, aaaa] = await Promise.allSettled([ask('a'), ask('aaaa')]);
  if (
    (a.status === 'fulfilled' && a.value.records.length > 0) ||
    (aaaa.status === 'fulfilled' && aaaa.value.records.length > 0)
  ) {
    return { name, resolved: true, answer: 'resolved' };
  }
  const failure = [a, aaaa].find((settled) => settled.status === 'rejected');
  if (!failure) return { name, resolved: false, answer: 'no address' };
  const error = failure.reason;
  return {
    name,
    resolved: false,
    answer: error instanceof DnsQueryError ? DENIALS[error.kind] : `error (${(error as Error).message})`,
  };
}

function describe(resolver: string, outcomes: readonly CanaryOutcome[], healthy: boolean): string {
  const denied = outcomes.filter((outcome) => !outcome.resolved);
  const what = denied.map((outcome) => `${outcome.answer} for ${outcome.name}`).join(', ');
  if (healthy) {
    const resolved = outcomes.length - denied.length;
    return denied.length === 0
      ? `${resolver} resolves the ${outcomes.length} canary name${outcomes.length === 1 ? '' : 's'}`
      : `${resolver} resolves ${resolved} of ${outcomes.length} canary names (${what})`;
  }
  return `${resolver} denies names that exist (${what}), so its negative answers cannot be believed`;
}
