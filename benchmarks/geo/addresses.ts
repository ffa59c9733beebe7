import { isPublicIp } from '@svc/geo-resolver';

/**
 * `count` public unicast addresses, 85% IPv4 and 15% IPv6 (repeats possible), drawn with `random`
 * (pass a seeded one: the same seed gives the same addresses).
 */
export function randomPublicAddresses(count: number, random: () => number): string[] {
  const found: string[] = [];
  while (found.length < count) {
    const ip =
      random() < 0.85
        ? `${1 + Math.floor(random() * 222)}.${Math.floor(random() * 256)}.${Math.floor(random() * 256)}.${Math.floor(random() * 256)}`
        : `2${Math.floor(random() * 0xfff)
            .toString(16)
            .padStart(
              3,
              '0',
            )}:${Math.floor(random() * 0xffff).toString(16)}::${Math.floor(random() * 0xffff).toString(16)}`;
    if (isPublicIp(ip)) found.push(ip);
  }
  return found;
}
