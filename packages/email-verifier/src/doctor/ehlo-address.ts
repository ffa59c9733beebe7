import { parseIp } from '@svc/ip-address';

/**
 * The client address a receiver echoed in the first line of its EHLO reply, or null. Exim and
 * Sendmail write `mx.example Hello name [203.0.113.5]`, Gmail `mx.google.com at your service,
 * [203.0.113.5]`; Postfix echoes nothing. The last bracketed address literal on the line counts.
 */
export function echoedAddress(firstLine: string): string | null {
  const literals = [...firstLine.matchAll(/\[(?:IPv6:)?([0-9a-fA-F:.]{2,45})\]/g)];
  for (const match of literals.reverse()) {
    try {
      return parseIp(match[1] as string).canonical;
    } catch {
      // not an address: keep looking
    }
  }
  return null;
}
