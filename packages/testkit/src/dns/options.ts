import { isIPv4 } from 'node:net';
import type { AnswerDefaults } from './answer.js';
import { validateDelay, validateTtl } from './fields.js';
import { describe } from './names.js';
import { type ServedEntry, validateZones } from './validate.js';
import type { DnsZones } from './zone.js';

/** Options of {@link startDnsServer}. */
export interface DnsServerOptions {
  /**
   * The names served; see {@link DnsZones}. Change them later with `setZone` / `removeZone`.
   * @default {} (every name answers NXDOMAIN)
   */
  zones?: DnsZones;
  /**
   * The loopback address to listen on: any 127.x.y.z, or `::1`.
   * @default '127.0.0.1'
   */
  host?: string;
  /**
   * The port for both UDP and TCP.
   * @default 0 (an ephemeral port, the same number for UDP and TCP)
   */
  port?: number;
  /**
   * TTL in seconds of records whose name sets no `ttl`.
   * @default 300
   */
  ttl?: number;
  /**
   * Milliseconds to wait before every reply whose name sets no `delayMs` (NXDOMAIN included).
   * @default 0
   */
  defaultDelayMs?: number;
}

/** Options with defaults applied and zones validated. */
export interface ResolvedDnsOptions extends AnswerDefaults {
  zones: Map<string, ServedEntry>;
  host: string;
  port: number;
}

/** Validates options and applies the defaults; throws a TypeError on the first bad field. */
export function resolveDnsOptions(options: DnsServerOptions): ResolvedDnsOptions {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`DNS server options must be an object, got ${describe(options)}`);
  }
  const host = options.host ?? '127.0.0.1';
  // Only loopback: tests must never put a listener on a reachable interface.
  if (typeof host !== 'string' || !((isIPv4(host) && host.startsWith('127.')) || host === '::1')) {
    throw new TypeError(
      `DNS option host must be a loopback address (127.x.y.z or ::1), got ${describe(host)}`,
    );
  }
  const port = options.port ?? 0;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new TypeError(`DNS option port must be an integer 0..65535, got ${describe(port)}`);
  }
  return {
    zones: validateZones(options.zones ?? {}),
    host,
    port,
    ttl: validateTtl(options.ttl ?? 300, 'DNS option ttl'),
    defaultDelayMs: validateDelay(options.defaultDelayMs ?? 0, 'DNS option defaultDelayMs'),
  };
}
