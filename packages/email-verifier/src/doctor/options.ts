import { hostname } from 'node:os';
import { parseIp } from '@svc/ip-address';
import type { Socks5ProxyOptions } from '../smtp/socks5.js';
import { type BlocklistSpec, DEFAULT_BLOCKLISTS } from './blocklists.js';

/** Options of {@link runDoctor}: the probing identity to check and where to check it. */
export interface DoctorOptions {
  /** The name the verifier sends with EHLO. @default os.hostname() */
  heloName?: string;
  /** The verifier's envelope sender; '' is the null sender `<>`. @default '' */
  mailFrom?: string;
  /**
   * The public address receivers see when the verifier probes, if you know it.
   * @default learned from the test host's EHLO reply (through the proxy when one is set)
   */
  publicAddress?: string;
  /**
   * A mail server to try port {@link DoctorOptions.port} on. Gmail's MX answers every client and
   * echoes the client's address in its EHLO reply, so it also tells the public address.
   * @default 'gmail-smtp-in.l.google.com'
   */
  testHost?: string;
  /** The port probes use. @default 25 */
  port?: number;
  /** The SOCKS5 proxy probes go through. @default none (direct connections) */
  proxy?: Socks5ProxyOptions;
  /** DNS server to ask (`host:port`, `[v6]:port` or an address). @default the first system resolver */
  dnsServer?: string;
  /** Blocklists to look the public address up in. @default DEFAULT_BLOCKLISTS */
  blocklists?: readonly BlocklistSpec[];
  /** A DNSSEC-signed name, to see whether the resolver validates. @default 'ietf.org' */
  dnssecTestName?: string;
  /** Time to establish the TCP connection (or the proxy's). @default 10000 */
  connectTimeoutMs?: number;
  /** Time to wait for each SMTP reply (the greeting included). @default 10000 */
  commandTimeoutMs?: number;
  /** Time to wait for each DNS answer. @default 5000 */
  dnsTimeoutMs?: number;
  /** A DNS answer slower than this is a warning. @default 1000 */
  slowDnsMs?: number;
  /** Clock for `checked_at` and `duration_ms`. @default Date.now */
  now?: () => number;
}

/** Every option with its default applied. */
export interface ResolvedDoctorOptions {
  heloName: string;
  mailFrom: string;
  publicAddress: string | null;
  testHost: string;
  port: number;
  proxy: Socks5ProxyOptions | null;
  dnsServer: string | undefined;
  blocklists: readonly BlocklistSpec[];
  dnssecTestName: string;
  connectTimeoutMs: number;
  commandTimeoutMs: number;
  dnsTimeoutMs: number;
  slowDnsMs: number;
  now: () => number;
}

const positive = (name: string, value: number) => {
  if (!Number.isInteger(value) || value <= 0)
    throw new TypeError(`${name} must be a positive integer, got ${value}`);
  return value;
};

/** Applies the defaults (the one place they are decided) and refuses bad values with a TypeError. */
export function resolveDoctorOptions(options: DoctorOptions = {}): ResolvedDoctorOptions {
  const heloName = options.heloName ?? hostname();
  if (!/^[a-z0-9.-]+$/i.test(heloName)) {
    throw new TypeError(`heloName must be a host name, got ${JSON.stringify(heloName)}`);
  }
  const mailFrom = options.mailFrom ?? '';
  if (/[\s<>]/.test(mailFrom) || (mailFrom !== '' && !/^[^@]+@[^@]+$/.test(mailFrom))) {
    throw new TypeError(`mailFrom must be '' or an address, got ${JSON.stringify(mailFrom)}`);
  }
  let publicAddress: string | null = null;
  if (options.publicAddress !== undefined) {
    try {
      publicAddress = parseIp(options.publicAddress).canonical;
    } catch {
      throw new TypeError(
        `publicAddress must be an IPv4 or IPv6 address, got ${JSON.stringify(options.publicAddress)}`,
      );
    }
  }
  const port = options.port ?? 25;
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new TypeError(`port must be 1-65535, got ${port}`);
  const blocklists = options.blocklists ?? DEFAULT_BLOCKLISTS;
  if (blocklists.length > 50) throw new TypeError(`at most 50 blocklists, got ${blocklists.length}`);
  for (const [i, list] of blocklists.entries()) {
    if (!/^[a-z0-9_-]+(\.[a-z0-9_-]+)+$/i.test(list.zone ?? '')) {
      throw new TypeError(`blocklists[${i}].zone must be a DNS zone, got ${JSON.stringify(list.zone)}`);
    }
  }
  return {
    heloName,
    mailFrom,
    publicAddress,
    testHost: options.testHost ?? 'gmail-smtp-in.l.google.com',
    port,
    proxy: options.proxy ?? null,
    dnsServer: options.dnsServer,
    blocklists,
    dnssecTestName: options.dnssecTestName ?? 'ietf.org',
    connectTimeoutMs: positive('connectTimeoutMs', options.connectTimeoutMs ?? 10_000),
    commandTimeoutMs: positive('commandTimeoutMs', options.commandTimeoutMs ?? 10_000),
    dnsTimeoutMs: positive('dnsTimeoutMs', options.dnsTimeoutMs ?? 5000),
    slowDnsMs: positive('slowDnsMs', options.slowDnsMs ?? 1000),
    now: options.now ?? Date.now,
  };
}
