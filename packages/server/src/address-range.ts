import { type ParsedIp, parseIp } from '@svc/ip-address';

/** An IP address or CIDR range, as `trustedProxies` and `webhooks.allowPrivateTargets` hold them. */
export interface AddressRange {
  /** The network address in its canonical text (IPv4-mapped IPv6 addresses become IPv4). */
  address: string;
  family: 4 | 6;
  /** Prefix length: 32 or 128 for a single address. */
  prefix: number;
}

/**
 * The one parser of address ranges (`10.0.0.0/8`, `2001:db8::/32`, `192.0.2.7`): the config
 * check and the matchers built from the checked list read them alike. The address is read by
 * @svc/ip-address's strict parser; the answer is the range, or why the text is not one.
 */
export function parseAddressRange(text: string): AddressRange | { problem: string } {
  const [address, prefix, extra] = text.split('/');
  const ip = address === undefined ? null : parseIpOrNull(address);
  if (!ip || extra !== undefined)
    return { problem: 'is not an IP address or CIDR range (such as 10.0.0.0/8)' };
  const max = ip.family === 4 ? 32 : 128;
  if (prefix === undefined) return { address: ip.canonical, family: ip.family, prefix: max };
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > max)
    return { problem: `has a prefix length that is not from 0 to ${max}` };
  return { address: ip.canonical, family: ip.family, prefix: Number(prefix) };
}

/** The strict parser's answer without its exception (any address, private ones included). */
export function parseIpOrNull(value: string): ParsedIp | null {
  try {
    return parseIp(value);
  } catch {
    return null;
  }
}
