import { isDottedQuad } from './dotted-quad.js';
import { ipv6LiteralProblem } from './ipv6-literal.js';
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
  if (inner.length >= 5 && inner.slice(0, 5).toLowerCase() === 'ipv6:') {
    if (inner.length === 5) return invalid(`The address literal ${literal} has no address after "IPv6:"`);
    const problem = ipv6LiteralProblem(inner.slice(5));
    if (problem !== null)
      return invalid(`The address literal ${literal} is not a valid IPv6 address: ${problem}`);
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

function invalid(detail: string): SyntaxFailure {
  return { problem: 'address_literal_invalid', detail };
}
