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
  const words = expandIpv6(ip);
  const masked = words.map((word, index) => {
    const bitsBefore = index * 16;
    if (prefixLength >= bitsBefore + 16) return word;
    if (prefixLength <= bitsBefore) return 0;
    return word & (0xffff << (16 - (prefixLength - bitsBefore))) & 0xffff;
  });
  return `${compressIpv6(masked)}/${prefixLength}`;
}

function expandIpv6(address: string): number[] {
  const [head = '', tail] = address.split('::');
  const parse = (part: string) => (part ? part.split(':').map((word) => Number.parseInt(word, 16)) : []);
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

// RFC 5952: lowercase, longest run of two or more zero words compressed (first run on ties).
function compressIpv6(words: number[]): string {
  let bestStart = -1;
  let bestLength = 1;
  for (let start = 0; start < 8; start++) {
    let length = 0;
    while (start + length < 8 && words[start + length] === 0) length++;
    if (length > bestLength) {
      bestStart = start;
      bestLength = length;
    }
  }
  const hex = words.map((word) => word.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}
