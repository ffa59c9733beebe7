import { formatIpv6, parseIp } from '@svc/ip-address';

/** A canonical dotted quad as an unsigned 32-bit number; a hot path, so no arrays. */
export function ipv4ToNumber(ip: string): number {
  let value = 0;
  let part = 0;
  for (let index = 0; index < ip.length; index++) {
    const code = ip.charCodeAt(index);
    if (code === 46) {
      value = value * 256 + part;
      part = 0;
    } else part = part * 10 + code - 48;
  }
  return (value * 256 + part) >>> 0;
}

/** The CIDR of the network that contains `ip` with the given prefix length (host bits cleared). */
export function networkOf(ip: string, family: 4 | 6, prefixLength: number): string {
  if (family === 4) {
    const value = ipv4ToNumber(ip);
    const mask = prefixLength === 0 ? 0 : (0xffffffff << (32 - prefixLength)) >>> 0;
    const base = (value & mask) >>> 0;
    return `${base >>> 24}.${(base >>> 16) & 255}.${(base >>> 8) & 255}.${base & 255}/${prefixLength}`;
  }
  const address = parseIp(ip);
  const words =
    address.family === 6
      ? address.words
      : [0, 0, 0, 0, 0, 0xffff, address.value >>> 16, address.value & 0xffff];
  const masked = words.map((word, index) => {
    const bitsBefore = index * 16;
    if (prefixLength >= bitsBefore + 16) return word;
    if (prefixLength <= bitsBefore) return 0;
    return word & (0xffff << (16 - (prefixLength - bitsBefore))) & 0xffff;
  });
  return `${formatIpv6(masked)}/${prefixLength}`;
}
