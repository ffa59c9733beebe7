import { formatIpv4, formatIpv6 } from '@svc/ip-address';

/** A deterministic pseudo-random generator, so failures reproduce. */
export { seededRandom as seeded } from '@svc/testkit';

/** A random unsigned 32-bit value. */
export const randomIpv4 = (random: () => number) => Math.floor(random() * 2 ** 32) >>> 0;

/** Eight random 16-bit groups; `firstGroup` pins the first one. */
export function randomIpv6(random: () => number, firstGroup?: number): number[] {
  const words = Array.from({ length: 8 }, () => Math.floor(random() * 0x10000));
  if (firstGroup !== undefined) words[0] = firstGroup;
  return words;
}

/** A random network of the given prefix length inside the whole family, as CIDR text. */
export function randomNetwork(
  random: () => number,
  family: 4 | 6,
  prefixLength: number,
  firstGroup?: number,
) {
  if (family === 4) {
    const mask = prefixLength === 0 ? 0 : (0xffffffff << (32 - prefixLength)) >>> 0;
    return `${formatIpv4((randomIpv4(random) & mask) >>> 0)}/${prefixLength}`;
  }
  const words = randomIpv6(random, firstGroup).map((word, index) => {
    const before = index * 16;
    if (prefixLength >= before + 16) return word;
    if (prefixLength <= before) return 0;
    return word & (0xffff << (16 - (prefixLength - before))) & 0xffff;
  });
  return `${formatIpv6(words)}/${prefixLength}`;
}
