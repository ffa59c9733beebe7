import { addressToBytes, parseIp } from '@svc/ip-address';

/**
 * The reversed form of an address under which reverse DNS and DNS blocklists publish it:
 * `5.113.0.203` for 203.0.113.5, 32 nibbles for IPv6 (RFC 3596 §2.5). Append `in-addr.arpa`,
 * `ip6.arpa` or a blocklist's zone.
 */
export function reversedAddress(ip: string): { reversed: string; family: 4 | 6 } {
  const address = parseIp(ip);
  const bytes = addressToBytes(address);
  if (address.family === 4) return { reversed: [...bytes].reverse().join('.'), family: 4 };
  const nibbles: string[] = [];
  for (const byte of bytes) nibbles.push((byte >> 4).toString(16), (byte & 15).toString(16));
  return { reversed: nibbles.reverse().join('.'), family: 6 };
}

/** The PTR name of an address: `5.113.0.203.in-addr.arpa` or `….ip6.arpa`. */
export function reverseDnsName(ip: string): string {
  const { reversed, family } = reversedAddress(ip);
  return `${reversed}.${family === 4 ? 'in-addr.arpa' : 'ip6.arpa'}`;
}
