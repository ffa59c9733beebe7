import { addressToBigInt, parseIp } from '@svc/ip-address';

/**
 * The numeric value of a valid address in the given family. The strict parser unwraps
 * `::ffff:a.b.c.d` to IPv4; as an IPv6 value it must stay in the IPv4-mapped range.
 */
export function ipToBigInt(ip: string, family: 4 | 6): bigint {
  const address = parseIp(ip);
  const value = addressToBigInt(address);
  return family === 6 && address.family === 4 ? (0xffffn << 32n) | value : value;
}
