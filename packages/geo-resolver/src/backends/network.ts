import { formatIpv4, formatIpv6, type ParsedIp, type ParsedIpv4, type ParsedIpv6 } from '@svc/ip-address';

/** The CIDR of the network of the given prefix length that contains an address (host bits cleared). */
export function formatNetwork(address: ParsedIp, prefixLength: number): string {
  if (address.family === 4) {
    const mask = prefixLength === 0 ? 0 : (0xffffffff << (32 - prefixLength)) >>> 0;
    return `${formatIpv4((address.value & mask) >>> 0)}/${prefixLength}`;
  }
  const masked = [0, 0, 0, 0, 0, 0, 0, 0];
  for (let index = 0; index < 8; index++) {
    const bitsBefore = index * 16;
    const word = address.words[index] as number;
    if (prefixLength >= bitsBefore + 16) masked[index] = word;
    else if (prefixLength > bitsBefore)
      masked[index] = word & (0xffff << (16 - (prefixLength - bitsBefore))) & 0xffff;
  }
  return `${formatIpv6(masked)}/${prefixLength}`;
}

/** An IPv4 address as the IPv6 address ::ffff:a.b.c.d (RFC 4291 §2.5.5.2). */
export function ipv4Mapped(address: ParsedIpv4): ParsedIpv6 {
  const { value } = address;
  return {
    family: 6,
    canonical: `::ffff:${address.canonical}`,
    words: [0, 0, 0, 0, 0, 0xffff, value >>> 16, value & 0xffff],
  };
}
