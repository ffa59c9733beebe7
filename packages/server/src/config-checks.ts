import { parseAddressRange, parseIpOrNull } from './address-range.js';

/**
 * The checks of string settings that a JSON type cannot say (a host name, a CIDR range, a
 * database URL), by the name a setting's schema gives in `x-check` (config-schema.ts). Each
 * returns why a value is refused, or null.
 */
export const VALUE_CHECKS = {
  host: checkHost,
  ip: checkIp,
  hostname: checkHostname,
  mailFrom: checkMailFrom,
  hostPort: checkHostPort,
  addressRange: checkAddressRange,
  origin: checkOrigin,
  metricsPath: checkMetricsPath,
  databaseUrl: checkDatabaseUrl,
  redisUrl: checkRedisUrl,
  redisPrefix: checkRedisPrefix,
  planId: checkPlanId,
  geofeed: checkGeofeed,
} as const satisfies Record<string, (value: string) => string | null>;

export type ValueCheck = keyof typeof VALUE_CHECKS;

function checkHost(value: string): string | null {
  if (value === '') return 'must not be empty';
  if (value === '::' || value === '0.0.0.0' || parseIpOrNull(value)) return null;
  return checkHostname(value) === null ? null : 'must be an IP address or a host name';
}

function checkIp(value: string): string | null {
  return parseIpOrNull(value) ? null : 'must be an IPv4 or IPv6 address';
}

function checkHostname(value: string): string | null {
  return /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i.test(
    value,
  )
    ? null
    : 'must be a host name (letters, digits, hyphens and dots)';
}

function checkMailFrom(value: string): string | null {
  const at = value.lastIndexOf('@');
  return at > 0 && checkHostname(value.slice(at + 1)) === null && !/\s/.test(value)
    ? null
    : 'must be an address such as probe@example.com';
}

function checkHostPort(value: string): string | null {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(value);
  const host = match?.[1] ?? match?.[2];
  const port = Number(match?.[3]);
  if (!host || !Number.isInteger(port) || port < 1 || port > 65_535)
    return 'must be host:port ([ipv6]:port for IPv6), port from 1 to 65535';
  return parseIpOrNull(host) || checkHostname(host) === null ? null : 'must name an IP address or host';
}

function checkAddressRange(value: string): string | null {
  const range = parseAddressRange(value);
  return 'problem' in range ? range.problem : null;
}

function checkOrigin(value: string): string | null {
  try {
    const url = new URL(value);
    if ((url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value) return null;
  } catch {
    // refused below
  }
  return 'is not an origin (scheme://host[:port], no path or trailing slash)';
}

function checkGeofeed(value: string): string | null {
  if (value === '') return 'must not be empty';
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return null;
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return null;
  } catch {
    // refused below
  }
  return 'must be a file path or an http(s) URL';
}

function checkMetricsPath(value: string): string | null {
  if (!/^\/[A-Za-z0-9/_.-]*$/.test(value)) return 'must be a URL path starting with /';
  return value === '/v2' || value.startsWith('/v2/') ? 'must not be under /v2 (the API)' : null;
}

function checkDatabaseUrl(value: string): string | null {
  const example = 'must be a URL such as postgres://user:password@host:5432/database';
  const url = parseUrl(value);
  if (!url) return example;
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
    return `${example} (postgres:// or postgresql://, not ${url.protocol}//)`;
  // A socket directory may stand in for the host: postgresql:///db?host=/var/run/postgresql
  if (url.hostname === '' && !url.searchParams.get('host')) return `${example} (it names no host)`;
  return null;
}

function checkRedisUrl(value: string): string | null {
  const example = 'must be a URL such as redis://:password@host:6379/0 (rediss:// for TLS)';
  const url = parseUrl(value);
  if (!url) return example;
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:')
    return `${example} (redis:// or rediss://, not ${url.protocol}//)`;
  if (url.hostname === '') return `${example} (it names no host)`;
  if (!/^\/?(\d{1,5})?$/.test(url.pathname)) return `${example} (the path is a database number, if any)`;
  return null;
}

function checkRedisPrefix(value: string): string | null {
  return /^[A-Za-z0-9_.-]{1,64}$/.test(value)
    ? null
    : 'must be 1 to 64 letters, digits, `_`, `.` or `-` (no `:`, which separates the key parts)';
}

function parseUrl(value: string): URL | null {
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

export function checkPlanId(value: string): string | null {
  return /^[a-z][a-z0-9_]{0,63}$/.test(value)
    ? null
    : 'must be lowercase letters, digits and underscores, starting with a letter';
}
