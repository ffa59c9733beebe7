import { mailProviderIds } from '../providers/mail-providers.js';
import { type PoolProxy, ProxyPool, type ProxyPoolEvent, type ProxySelection } from './proxy-pool.js';
import { parseSocks5Url, proxyAddress, type Socks5ProxyOptions, socks5SocketFactory } from './socks5.js';

/** One SOCKS5 proxy of `smtp.proxies`. */
export interface SmtpProxyOptions {
  /** `socks5://[user:password@]host[:port]` (port 1080 by default; percent-encode special characters). */
  url: string;
  /** The name results (`smtp.proxy`) and logs show. @default 'host:port' of the URL */
  label?: string;
  /**
   * Receiving providers this proxy is reserved for under `proxySelection: 'per-provider'`
   * (`google`, `microsoft`, `yahoo`, … see the provider registry, mailProviders()). @default [] (serves every other MX)
   */
  providers?: readonly string[];
  /** Simultaneous connections to one MX address through this proxy. @default smtp.perHostConcurrency */
  perHostConcurrency?: number;
  /**
   * New sessions per minute to one MX address through this proxy, evenly spaced (receivers
   * throttle connection rates per client address). @default 0 (no limit)
   */
  sessionsPerMinute?: number;
}

/** How long a failed proxy stays out of the pool. */
export interface ProxyCooldownOptions {
  /** Out this long after its first failure in a row. @default 30000 */
  initialMs?: number;
  /** Each further failure in a row multiplies the wait by this (1: a fixed cool-down). @default 2 */
  factor?: number;
  /** The longest wait. @default 600000 (10 min) */
  maxMs?: number;
}

/** The proxy settings of SmtpProbeOptions that resolveProxyPool reads. */
export interface ProxyPoolSettings {
  proxy?: Socks5ProxyOptions;
  proxies?: readonly SmtpProxyOptions[];
  proxySelection?: ProxySelection;
  proxyCooldown?: ProxyCooldownOptions;
  onProxyEvent?: (event: ProxyPoolEvent) => void;
}

/** The most proxies one pool takes. */
export const MAX_PROXIES = 100;

const ENTRY_KEYS = new Set(['url', 'label', 'providers', 'perHostConcurrency', 'sessionsPerMinute']);

/**
 * Builds the pool from `smtp.proxies` (or the single `smtp.proxy`, a pool of one), validating
 * every entry; null when neither is set. Messages name the entry by index, never by its URL,
 * which may hold a password.
 */
export function resolveProxyPool(
  smtp: ProxyPoolSettings,
  perHostConcurrency: number,
  now: () => number,
): ProxyPool | null {
  if (smtp.proxy !== undefined && smtp.proxies !== undefined)
    throw new TypeError('set smtp.proxy or smtp.proxies, not both (a single proxy is a pool of one)');
  const selection = smtp.proxySelection ?? 'per-provider';
  if (selection !== 'per-provider' && selection !== 'round-robin') {
    throw new TypeError(
      `smtp.proxySelection must be per-provider or round-robin, got ${JSON.stringify(selection)}`,
    );
  }
  const cooldown = resolveCooldown(smtp.proxyCooldown ?? {});
  let proxies: PoolProxy[];
  if (smtp.proxy !== undefined) {
    const label = proxyAddress(smtp.proxy);
    proxies = [
      {
        label,
        socketFactory: socks5SocketFactory(smtp.proxy),
        providers: new Set(),
        perHostConcurrency,
        sessionsPerMinute: 0,
      },
    ];
  } else if (smtp.proxies !== undefined) {
    if (!Array.isArray(smtp.proxies) || smtp.proxies.length === 0 || smtp.proxies.length > MAX_PROXIES)
      throw new TypeError(`smtp.proxies must be a list of 1..${MAX_PROXIES} proxies`);
    proxies = smtp.proxies.map((entry, index) => resolveEntry(entry, index, perHostConcurrency, selection));
    const labels = new Set<string>();
    for (const [index, proxy] of proxies.entries()) {
      if (labels.has(proxy.label))
        throw new TypeError(
          `smtp.proxies[${index}]: the label ${proxy.label} is used twice; give each a label`,
        );
      labels.add(proxy.label);
    }
  } else return null;
  return new ProxyPool(proxies, selection, cooldown, now, smtp.onProxyEvent);
}

function resolveEntry(
  entry: SmtpProxyOptions,
  index: number,
  perHostDefault: number,
  selection: ProxySelection,
): PoolProxy {
  const where = `smtp.proxies[${index}]`;
  if (typeof entry !== 'object' || entry === null)
    throw new TypeError(`${where} must be an object with a url`);
  for (const key of Object.keys(entry)) {
    if (!ENTRY_KEYS.has(key))
      throw new TypeError(`${where}: unknown field "${key}" (expected ${[...ENTRY_KEYS].join(', ')})`);
  }
  if (typeof entry.url !== 'string') throw new TypeError(`${where}.url must be a socks5:// URL`);
  const proxy = parseSocks5Url(entry.url, `${where}.url`);
  const label = entry.label ?? proxyAddress(proxy);
  if (typeof label !== 'string' || !/^[\w.:[\]@-]{1,100}$/.test(label))
    throw new TypeError(`${where}.label must be 1..100 letters, digits or . : - _ @ [ ]`);
  const providers = entry.providers ?? [];
  if (!Array.isArray(providers)) throw new TypeError(`${where}.providers must be a list of provider names`);
  for (const provider of providers) {
    const known = mailProviderIds();
    if (!known.includes(provider)) {
      throw new TypeError(
        `${where}.providers: unknown provider ${JSON.stringify(provider)} (known: ${known.join(', ')})`,
      );
    }
  }
  if (providers.length > 0 && selection === 'round-robin') {
    throw new TypeError(
      `${where}.providers pins the proxy to providers, which only proxySelection 'per-provider' does`,
    );
  }
  const perHost = entry.perHostConcurrency ?? perHostDefault;
  if (!Number.isInteger(perHost) || perHost <= 0)
    throw new TypeError(`${where}.perHostConcurrency must be a positive integer, got ${perHost}`);
  const sessionsPerMinute = entry.sessionsPerMinute ?? 0;
  if (typeof sessionsPerMinute !== 'number' || !Number.isFinite(sessionsPerMinute) || sessionsPerMinute < 0)
    throw new TypeError(`${where}.sessionsPerMinute must be a number ≥ 0, got ${sessionsPerMinute}`);
  return {
    label,
    socketFactory: socks5SocketFactory(proxy),
    providers: new Set(providers),
    perHostConcurrency: perHost,
    sessionsPerMinute,
  };
}

function resolveCooldown(options: ProxyCooldownOptions) {
  const check = (name: string, value: number, min: number) => {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < min)
      throw new TypeError(`smtp.proxyCooldown.${name} must be a number ≥ ${min}, got ${value}`);
    return value;
  };
  const initialMs = check('initialMs', options.initialMs ?? 30_000, 0);
  const maxMs = check('maxMs', options.maxMs ?? Math.max(600_000, initialMs), initialMs);
  return { initialMs, maxMs, factor: check('factor', options.factor ?? 2, 1) };
}

/**
 * Checks proxy settings as createVerifier does, throwing the same TypeError (which names the
 * entry by index, never its URL), without building a verifier: for configuration loaders.
 */
export function checkProxyPoolOptions(smtp: ProxyPoolSettings): void {
  resolveProxyPool(smtp, 1, Date.now);
}
