import { isIPv6 } from 'node:net';
import type { SyntaxFailure } from './problems.js';

/**
 * Checks an RFC 5321 address literal such as `[192.0.2.1]` or `[IPv6:2001:db8::1]` (brackets
 * included). General literals (`[tag:content]`) are rejected: no mail system uses them.
 * Returns null when valid.
 */
export function checkAddressLiteral(literal: string): SyntaxFailure | null {
  if (literal.charCodeAt(literal.length - 1) !== 0x5d) {
    return invalid(`The address literal ${literal} is not closed with "]"`);
  }
  const inner = literal.slice(1, -1);
  if (inner.length > 5 && inner.slice(0, 5).toLowerCase() === 'ipv6:') {
    const ip = inner.slice(5);
    // node:net accepts zone ids (fe80::1%eth0), which RFC 5321 has no syntax for.
    if (ip.includes('%') || !isIPv6(ip))
      return invalid(`The address literal ${literal} is not a valid IPv6 address`);
    return null;
  }
  if (inner.includes(':')) {
    return invalid(
      `The address literal ${literal} is not supported; only [IPv4] and [IPv6:...] literals are`,
    );
  }
  if (!isDottedQuad(inner)) return invalid(`The address literal ${literal} is not a valid IPv4 address`);
  return null;
}

// RFC 5321 Snum: 1*3DIGIT with a value of 0..255, four of them.
function isDottedQuad(text: string): boolean {
  let parts = 0;
  let digits = 0;
  let value = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 0x2e;
    if (c === 0x2e) {
      if (digits === 0 || value > 255) return false;
      parts++;
      digits = 0;
      value = 0;
    } else if (c >= 0x30 && c <= 0x39) {
      if (++digits > 3) return false;
      value = value * 10 + (c - 0x30);
    } else {
      return false;
    }
  }
  return parts === 4;
}

function invalid(detail: string): SyntaxFailure {
  return { problem: 'address_literal_invalid', detail };
}
