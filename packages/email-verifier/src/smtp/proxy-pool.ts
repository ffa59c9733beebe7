import type { SocketFactory } from './connection.js';

/** How a session's proxy is chosen. */
export type ProxySelection = 'per-provider' | 'round-robin';

/** One proxy of a pool, resolved: how to reach it and what it may carry. */
export interface PoolProxy {
  /** The name in results and logs: the configured label or `host:port`, never credentials. */
  readonly label: string;
  readonly socketFactory: SocketFactory;
  /** Receiving providers this proxy is reserved for under `per-provider` selection (empty: any). */
  readonly providers: ReadonlySet<string>;
  /** Simultaneous connections to one MX address through this proxy. */
  readonly perHostConcurrency: number;
  /** New sessions per minute to one MX address through this proxy, evenly spaced; 0: no limit. */
  readonly sessionsPerMinute: number;
}

/** The cool-down of a failed proxy: `initialMs × factor^(failures in a row − 1)`, at most `maxMs`. */
export interface ProxyCooldown {
  initialMs: number;
  maxMs: number;
  factor: number;
}

/** A proxy leaving or rejoining the pool, for the operator's log (no credentials in it). */
export interface ProxyPoolEvent {
  proxy: string;
  state: 'out' | 'back';
  /** Failures in a row that took it out (0 when back). */
  failures: number;
  /** When it may be tried again (ISO 8601), for `out`. */
  until: string | null;
  /** What failed, for `out`. */
  error: string | null;
}

interface Health {
  failures: number;
  outUntil: number;
  lastError: string | null;
}

/**
 * The SOCKS5 proxies SMTP sessions go through. `choose` picks the proxy for a new session: under
 * `per-provider`, the proxies pinned to the receiving provider, else the unpinned ones, else
 * (as a last resort) any; under `round-robin`, all in turn. A proxy that failed at the SOCKS
 * layer is out for its cool-down, growing with each failure in a row; a session it carries
 * resets that.
 */
export class ProxyPool {
  private readonly health = new Map<PoolProxy, Health>();
  private readonly cursors = new Map<string, number>();
  /** When the next session may start, per (proxy, MX address), on the monotonic clock. */
  private readonly nextStart = new Map<string, number>();

  constructor(
    readonly proxies: readonly PoolProxy[],
    private readonly selection: ProxySelection,
    private readonly cooldown: ProxyCooldown,
    private readonly now: () => number,
    private readonly onEvent?: (event: ProxyPoolEvent) => void,
  ) {
    if (proxies.length === 0) throw new TypeError('a proxy pool needs at least one proxy');
    for (const proxy of proxies) this.health.set(proxy, { failures: 0, outUntil: 0, lastError: null });
  }

  /** Whether the proxy may carry a new session now. */
  isAvailable(proxy: PoolProxy): boolean {
    const health = this.health.get(proxy);
    return health !== undefined && health.outUntil <= this.now();
  }

  /** The proxies a session to this provider's MX may use now, by the selection rule. */
  candidates(provider: string | null): PoolProxy[] {
    const available = this.proxies.filter((proxy) => this.isAvailable(proxy));
    if (this.selection === 'round-robin') return available;
    if (provider !== null) {
      const pinned = available.filter((proxy) => proxy.providers.has(provider));
      if (pinned.length > 0) return pinned;
    }
    const general = available.filter((proxy) => proxy.providers.size === 0);
    return general.length > 0 ? general : available;
  }

  /**
   * The proxy for the next session, in turn among the candidates, skipping those `busy` says are
   * at their limit (when all are, the next in turn, whose slot the caller then waits for); null
   * when every candidate is out.
   */
  choose(provider: string | null, busy?: (proxy: PoolProxy) => boolean): PoolProxy | null {
    const candidates = this.candidates(provider);
    if (candidates.length === 0) return null;
    const key = this.selection === 'per-provider' ? (provider ?? '') : '';
    const cursor = this.cursors.get(key) ?? 0;
    let offset = 0;
    while (
      offset < candidates.length &&
      busy?.(candidates[(cursor + offset) % candidates.length] as PoolProxy)
    )
      offset++;
    if (offset === candidates.length) offset = 0;
    this.cursors.set(key, (cursor + offset + 1) % candidates.length);
    return candidates[(cursor + offset) % candidates.length] as PoolProxy;
  }

  /** How long a new session through the proxy to this MX address must wait for its rate, ms. */
  paceDelay(proxy: PoolProxy, address: string): number {
    if (proxy.sessionsPerMinute === 0) return 0;
    return Math.max(0, (this.nextStart.get(`${proxy.label}|${address}`) ?? 0) - performance.now());
  }

  /**
   * Books the next session start through the proxy to this MX address and waits for it (or for
   * `signal`): sessions start at least 60 s / sessionsPerMinute apart. Booking before waiting
   * keeps concurrent sessions apart too. Real time, not the injected clock: it paces sockets.
   */
  async pace(proxy: PoolProxy, address: string, signal: AbortSignal): Promise<void> {
    if (proxy.sessionsPerMinute === 0) return;
    const key = `${proxy.label}|${address}`;
    const now = performance.now();
    const start = Math.max(now, this.nextStart.get(key) ?? 0);
    this.nextStart.set(key, start + 60_000 / proxy.sessionsPerMinute);
    // One entry per MX address ever paced: drop those whose pause is over when it grows.
    if (this.nextStart.size > 10_000) {
      for (const [other, at] of this.nextStart) if (at < now) this.nextStart.delete(other);
    }
    if (start <= now || signal.aborted) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, start - now);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  /** The proxy failed at the SOCKS layer: out for its cool-down. */
  failed(proxy: PoolProxy, error: string): void {
    const health = this.health.get(proxy);
    if (!health) return;
    const now = this.now();
    // Sessions already under way when it went out report the same outage: count it once.
    if (health.outUntil > now) return;
    health.failures++;
    health.lastError = error;
    const wait = Math.min(
      this.cooldown.maxMs,
      this.cooldown.initialMs * this.cooldown.factor ** (health.failures - 1),
    );
    health.outUntil = now + wait;
    this.onEvent?.({
      proxy: proxy.label,
      state: 'out',
      failures: health.failures,
      until: new Date(health.outUntil).toISOString(),
      error,
    });
  }

  /** The proxy carried a session to an MX: its failure streak ends. */
  succeeded(proxy: PoolProxy): void {
    const health = this.health.get(proxy);
    if (!health || health.failures === 0) return;
    health.failures = 0;
    health.lastError = null;
    this.onEvent?.({ proxy: proxy.label, state: 'back', failures: 0, until: null, error: null });
  }

  /** Why no proxy is available, for a result's `smtp.message`. */
  describeOutage(provider: string | null): string {
    const out = this.proxies
      .filter((proxy) => !this.isAvailable(proxy))
      .map((proxy) => `${proxy.label}: ${this.health.get(proxy)?.lastError ?? 'failed'}`);
    const scope = provider !== null && this.selection === 'per-provider' ? ` for ${provider}` : '';
    return `no SOCKS5 proxy available${scope}; out after failing: ${out.join('; ')}`.slice(0, 500);
  }

  /** Each proxy's state now (for health reports). */
  status(): Array<{ proxy: string; available: boolean; failures: number; until: string | null }> {
    return this.proxies.map((proxy) => {
      const health = this.health.get(proxy) as Health;
      const available = health.outUntil <= this.now();
      return {
        proxy: proxy.label,
        available,
        failures: health.failures,
        until: available ? null : new Date(health.outUntil).toISOString(),
      };
    });
  }
}
